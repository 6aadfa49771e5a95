-- Aggregates over an updating source: every value can be retracted.
SELECT
    warehouse,
    COUNT(*)        AS skus,
    COUNT(price)    AS priced,
    SUM(qty)        AS total_qty,
    SUM(price)      AS sum_price,
    MIN(price)      AS min_price,
    MAX(price)      AS max_price,
    BOOL_AND(active) AS all_active,
    BOOL_OR(active)  AS any_active
FROM source('agg.stock')
GROUP BY warehouse
