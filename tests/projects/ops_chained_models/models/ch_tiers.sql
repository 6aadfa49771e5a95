-- An aggregate over an aggregate: customers per tier.
SELECT CASE WHEN total >= ${big_total} THEN 'big' ELSE 'small' END AS tier,
       COUNT(*) AS customers
FROM ref('ch_customer_totals')
GROUP BY 1
