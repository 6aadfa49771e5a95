-- a lookup: only the events trigger; each joins every label its kind has when it
-- arrives (natively: the table as weir run read it at start)
SELECT e.id, e.kind, k.label
FROM source('ev') AS e
JOIN source('kinds') AS k ON e.kind = k.kind
