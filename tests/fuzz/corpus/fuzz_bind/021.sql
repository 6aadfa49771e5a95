SELECT CASE WHEN amount > 0 THEN 1 ELSE 'x' END FROM source('s.t')
