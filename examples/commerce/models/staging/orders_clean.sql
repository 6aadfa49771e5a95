-- Orders that count: cancelled orders are dropped, status is normalised.
SELECT
    order_id,
    customer_id,
    amount,
    lower(trim(status)) AS status,
    created_at
FROM source('commerce.orders')
WHERE status <> 'cancelled'
