SELECT customer_id, count(*) AS n FROM source('shop.timed_orders') GROUP BY customer_id
