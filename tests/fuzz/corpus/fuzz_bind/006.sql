SELECT sum(amount ORDER BY created_at) FROM source('s.t')
