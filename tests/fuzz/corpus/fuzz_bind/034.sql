SELECT sum(*) FROM source('s.t')
