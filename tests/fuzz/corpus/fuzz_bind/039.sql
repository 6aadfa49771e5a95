WITH a AS (SELECT order_id, amount FROM source('s.t') WHERE amount > 0)
SELECT order_id FROM a
UNION ALL
SELECT order_id FROM a
