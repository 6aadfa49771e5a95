SELECT customer_id, array_agg(status) AS s FROM source('shop.orders') GROUP BY customer_id
