-- a join of two sources on the routing key (the customers side updates and deletes)
SELECT o.order_id, o.customer_id, c.name, c.tier, o.amount
FROM source('shop.orders') o
JOIN source('shop.customers') c ON o.customer_id = c.customer_id
