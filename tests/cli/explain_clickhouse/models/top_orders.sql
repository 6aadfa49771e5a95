SELECT order_id, amount FROM source('shop.orders') ORDER BY amount DESC LIMIT 3
