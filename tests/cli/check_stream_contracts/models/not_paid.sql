SELECT order_id FROM source('shop.orders')
WHERE order_id NOT IN (SELECT order_id FROM source('shop.payments'))
