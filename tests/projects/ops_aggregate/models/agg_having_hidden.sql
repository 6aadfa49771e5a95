-- HAVING on aggregates that are not in the SELECT list.
SELECT warehouse, MAX(price) AS max_price
FROM source('agg.stock')
GROUP BY warehouse
HAVING COUNT(*) > 1 AND BOOL_OR(active)
