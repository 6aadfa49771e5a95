SELECT order_id FROM source('shop.orders') o
WHERE NOT EXISTS (SELECT 1 FROM source('shop.payments') p WHERE p.order_id = o.order_id)
