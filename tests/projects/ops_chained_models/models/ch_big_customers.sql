-- A filter over an upserting model: customers enter and leave as totals change.
SELECT customer, total
FROM ref('ch_customer_totals')
WHERE total >= ${big_total}
