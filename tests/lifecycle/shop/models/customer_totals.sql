SELECT customer_id, COUNT(*) AS orders, SUM(amount) AS total
FROM ref('orders_clean')
GROUP BY customer_id
