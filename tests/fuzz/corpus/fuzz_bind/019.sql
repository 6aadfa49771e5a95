SELECT amount IS TRUE FROM source('s.t')
