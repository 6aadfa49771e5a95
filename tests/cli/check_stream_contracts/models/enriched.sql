SELECT o.order_id, p.paid
FROM source('shop.orders') o
LEFT JOIN source('shop.payments') p ON p.order_id = o.order_id
