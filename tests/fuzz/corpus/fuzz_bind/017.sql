SELECT customer_id, COUNT(*) AS order_count, SUM(amount) AS total_spend
FROM source('s.t')
WHERE status <> 'cancelled'
GROUP BY customer_id
