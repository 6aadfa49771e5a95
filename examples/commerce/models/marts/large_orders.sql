-- Orders at or above the configured threshold, as an append-only feed.
SELECT order_id, customer_id, amount, created_at
FROM ref('orders_clean')
WHERE amount >= ${min_amount}
