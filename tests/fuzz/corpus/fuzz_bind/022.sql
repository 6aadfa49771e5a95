SELECT CASE WHEN amount THEN 1 END FROM source('s.t')
