-- A global aggregate over an insert-only source with event time.
SELECT COUNT(*) AS n, SUM(amount) AS total
FROM source('agg.sales')
