-- An integer group key: changes within a step are ordered by value (9 before 10).
SELECT qty, COUNT(*) AS skus, MIN(sku) AS first_sku, MAX(sku) AS last_sku
FROM source('agg.stock')
GROUP BY qty
