SELECT customer_id, COUNT(*) AS n, SUM(amount) AS total, COUNT(DISTINCT status) AS statuses
FROM source('shop.orders') GROUP BY customer_id HAVING COUNT(*) > 1
