-- DISTINCT over an upserting model: which per-customer order counts occur.
SELECT DISTINCT orders
FROM ref('ch_customer_totals')
