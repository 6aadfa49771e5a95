SELECT orders.amount FROM source('s.t') AS o
