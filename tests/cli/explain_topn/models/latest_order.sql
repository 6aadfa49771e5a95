SELECT DISTINCT ON (customer_id) customer_id, order_id, amount, created_at
FROM source('shop.orders')
ORDER BY customer_id, created_at DESC
