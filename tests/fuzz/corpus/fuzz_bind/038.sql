WITH a AS (SELECT order_id FROM source('s.t')),
     a AS (SELECT order_id FROM source('s.t'))
SELECT * FROM a
