SELECT o.order_id, o.amount, p.paid
FROM source('shop.orders') o
JOIN source('shop.payments') p ON p.order_id = o.order_id
