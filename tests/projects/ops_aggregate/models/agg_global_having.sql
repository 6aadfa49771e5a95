-- A global aggregate with HAVING has zero or one row.
SELECT COUNT(*) AS n, SUM(qty) AS total_qty
FROM source('agg.stock')
HAVING COUNT(*) >= 2
