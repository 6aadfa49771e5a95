-- the same join without lookup: both sides trigger (the contrast)
SELECT e.id, k.label
FROM source('lk.ev') AS e
JOIN source('lk.kinds') AS k ON e.kind = k.kind
