SELECT customer_id, AVG(amount) AS avg_amount FROM source('shop.orders') GROUP BY customer_id
