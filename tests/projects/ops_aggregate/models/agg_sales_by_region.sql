-- Every aggregate over an insert-only source.
SELECT
    region,
    COUNT(*)                                AS n,
    COUNT(amount)                           AS n_amount,
    COUNT(DISTINCT product)                 AS n_products,
    SUM(qty)                                AS total_qty,
    SUM(amount)                             AS total_amount,
    AVG(amount)                             AS avg_amount,
    MIN(amount)                             AS min_amount,
    MAX(amount)                             AS max_amount,
    BOOL_AND(ok)                            AS all_ok,
    BOOL_OR(ok)                             AS any_ok,
    COUNT(*) FILTER (WHERE ok)              AS n_ok,
    SUM(amount) FILTER (WHERE qty > 1)      AS multi_amount
FROM source('agg.sales')
GROUP BY region
