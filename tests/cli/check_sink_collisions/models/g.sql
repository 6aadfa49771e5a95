SELECT order_id, amount FROM source('shop.orders')
