-- DISTINCT and FILTER aggregates under retraction.
SELECT
    warehouse,
    COUNT(DISTINCT price)                  AS distinct_prices,
    SUM(DISTINCT qty)                      AS distinct_qty_sum,
    COUNT(*) FILTER (WHERE active)         AS active_skus,
    SUM(qty) FILTER (WHERE NOT active)     AS inactive_qty
FROM source('agg.stock')
GROUP BY warehouse
