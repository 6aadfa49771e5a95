SELECT o.*, 1 AS one FROM source('s.t') o
