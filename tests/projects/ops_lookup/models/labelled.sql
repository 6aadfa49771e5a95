-- a lookup: only the events trigger; an event joins every label its kind has when it
-- arrives, and a label added or removed later changes no earlier row
SELECT e.id, k.label
FROM source('lk.ev') AS e
JOIN source('lk.kinds') AS k ON e.kind = k.kind
