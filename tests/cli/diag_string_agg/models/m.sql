SELECT customer_id, string_agg(status, ',') AS s FROM source('shop.orders') GROUP BY customer_id
