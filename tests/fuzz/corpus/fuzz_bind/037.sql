WITH a(x, y, z) AS (SELECT order_id, amount FROM source('s.t'))
SELECT * FROM a
