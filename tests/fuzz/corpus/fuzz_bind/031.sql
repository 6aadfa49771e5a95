SELECT status || (amount > 0) FROM source('s.t')
