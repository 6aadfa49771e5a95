SELECT 12345.6::numeric(3,1) FROM source('s.t')
