SELECT order_id, amount FROM source('shop.orders') WHERE amount > 10
