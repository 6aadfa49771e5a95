-- a lookup into another model that updates: an event sees the count as it is when the
-- event arrives; later updates of the count change no earlier row
SELECT e.id, c.labels
FROM source('lk.ev') AS e
JOIN ref('kind_counts') AS c ON e.kind = c.kind
