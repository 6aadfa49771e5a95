SELECT customer_id, jsonb_agg(status) AS s FROM source('shop.orders') GROUP BY customer_id
