SELECT o.order_id, o.amount, c.country
FROM ref('orders_clean') o
JOIN source('shop.customers') c ON o.customer_id = c.customer_id
