SELECT order_id, customer_id, amount, status, created_at
FROM source('shop.orders')
WHERE status <> 'cancelled' AND amount >= ${min_amount}
