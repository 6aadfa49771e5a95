SELECT CASE WHEN amount > 0 THEN 1 ELSE 2.5 END AS a,
       CASE WHEN amount > 0 THEN order_id ELSE 0 END AS b,
       CASE WHEN amount > 0 THEN NULL ELSE created_at END AS c,
       CASE WHEN amount > 0 THEN amount ELSE amount END AS d
FROM source('s.t')
