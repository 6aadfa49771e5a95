-- Groups enter and leave the result as they cross the HAVING condition.
SELECT warehouse, SUM(qty) AS total_qty, COUNT(*) AS skus
FROM source('agg.stock')
GROUP BY warehouse
HAVING SUM(qty) >= 10
