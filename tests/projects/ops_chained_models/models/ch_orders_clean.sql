-- Staging: test orders dropped, customer names normalised.
SELECT order_id, lower(trim(customer)) AS customer, amount, status, ts
FROM source('ch.orders')
WHERE status <> 'test'
