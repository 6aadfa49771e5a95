SELECT customer_id, COUNT(*) AS n, SUM(amount) AS total FROM source('shop.orders') WHERE status <> 'cancelled' GROUP BY customer_id
