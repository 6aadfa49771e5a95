SELECT customer_id, SUM(amount) AS total FROM source('shop.orders') GROUP BY customer_id
