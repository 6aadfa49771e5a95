SELECT CASE WHEN amount > 0 THEN status ELSE amount END FROM source('s.t')
