-- a left lookup: every event, with the labels of its kind or NULL (PostgreSQL's LEFT
-- JOIN), the kinds table read as it is when each event arrives
SELECT e.id, e.kind, k.label
FROM source('ev2') AS e
LEFT JOIN source('kinds') AS k ON e.kind = k.kind
