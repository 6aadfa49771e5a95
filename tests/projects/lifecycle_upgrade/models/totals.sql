SELECT customer_id, COUNT(*) * 10 AS orders, SUM(amount) AS total
FROM ref('orders_clean')
GROUP BY customer_id
