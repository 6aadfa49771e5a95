-- a LEFT lookup: an event whose kind has no label gets a NULL (PostgreSQL's LEFT JOIN).
-- Where ClickHouse does not maintain it, weir run --target ch computes it natively
-- (reading both tables) and writes it into ClickHouse
SELECT e.id, e.kind, k.label
FROM source('ev') AS e
LEFT JOIN source('kinds') AS k ON e.kind = k.kind
