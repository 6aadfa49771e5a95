SELECT concat('a', order_id, NULL, amount) AS c1, concat_ws(', ', status, amount, created_at) AS c2
FROM source('s.t')
