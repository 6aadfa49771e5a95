-- a lookup: only the events trigger it; the kinds table is read as it is when each
-- event arrives (a label added later does not update earlier rows)
SELECT e.id, k.label
FROM source('ev') AS e
JOIN source('kinds') AS k ON e.kind = k.kind
