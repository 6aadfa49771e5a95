SELECT customer_id, status, COUNT(*) FROM source('shop.orders') GROUP BY customer_id
