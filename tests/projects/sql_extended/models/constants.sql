SELECT 1 AS x, 'a' AS y, 2.50 AS z
