SELECT order_id FROM source('shop.orders')
