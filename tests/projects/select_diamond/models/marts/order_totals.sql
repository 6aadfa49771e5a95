SELECT customer_id, SUM(amount) AS total FROM ref('stg_orders') GROUP BY customer_id
