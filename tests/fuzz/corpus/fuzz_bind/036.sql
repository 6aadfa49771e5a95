WITH a(x, y) AS (SELECT order_id, amount FROM source('s.t')),
     b AS (SELECT x, y * 2 AS y2 FROM a)
SELECT * FROM b
