-- A global aggregate behind a WHERE: the first step may pass no row at all.
SELECT COUNT(*) AS n, SUM(qty) AS total_qty
FROM source('agg.stock')
WHERE active
