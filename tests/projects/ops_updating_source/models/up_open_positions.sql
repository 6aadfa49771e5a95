-- Positions with a non-zero quantity, keyed by the composite primary key.
SELECT account_id, symbol, qty
FROM source('up.positions')
WHERE qty <> 0
