SELECT o.order_id, o.amount, c.name, c.country
FROM source('shop.orders') o
LEFT JOIN source('shop.customers') c ON c.customer_id = o.customer_id
