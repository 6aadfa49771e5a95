SELECT customer_id, count(*) AS n FROM source('shop.orders') GROUP BY customer_id
