SELECT customer_id, COUNT(*) AS orders, SUM(amount) AS total, MAX(amount) AS biggest
FROM ref('orders_clean')
GROUP BY customer_id
