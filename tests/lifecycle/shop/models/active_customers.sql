SELECT customer_id, MAX(created_at) AS last_order
FROM source('shop.orders')
GROUP BY customer_id
