SELECT customer_id, status, COUNT(*) AS n FROM source('shop.orders') GROUP BY customer_id, status
