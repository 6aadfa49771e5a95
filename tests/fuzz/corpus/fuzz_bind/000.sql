SELECT sum(status) FROM source('s.t')
