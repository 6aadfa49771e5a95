SELECT sum('1') FROM source('s.t')
