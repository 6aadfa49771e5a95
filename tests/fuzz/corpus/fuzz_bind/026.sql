SELECT CASE status WHEN 'paid' THEN 1 WHEN 'new' THEN 2 ELSE 0 END AS code
FROM source('s.t')
