-- orders that count: not cancelled, above the minimum
SELECT order_id, customer_id, amount, status, created_at
FROM source('shop.orders')
WHERE status <> 'cancelled' AND amount >= ${min_amount}
