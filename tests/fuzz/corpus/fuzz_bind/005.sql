SELECT sum(count(*)) FROM source('s.t')
