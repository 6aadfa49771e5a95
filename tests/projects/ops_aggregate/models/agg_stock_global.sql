-- A global aggregate: PostgreSQL always returns exactly one row.
SELECT
    COUNT(*)     AS n,
    COUNT(price) AS priced,
    SUM(qty)     AS total_qty,
    MAX(price)   AS max_price,
    AVG(qty)     AS avg_qty
FROM source('agg.stock')
