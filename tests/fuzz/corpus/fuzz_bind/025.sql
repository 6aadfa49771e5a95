SELECT CASE WHEN amount > 100 THEN 'big' WHEN amount > 10 THEN 'medium' ELSE 'small' END AS size,
       CASE WHEN status = 'paid' THEN amount END
FROM source('s.t')
