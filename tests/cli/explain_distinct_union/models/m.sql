SELECT DISTINCT status FROM source('shop.orders') WHERE amount > 10 UNION ALL SELECT 'none' AS status FROM source('shop.orders') WHERE amount IS NULL
