SELECT customer_id, SUM(amount) OVER (PARTITION BY customer_id ORDER BY created_at) AS running
FROM source('shop.orders')
