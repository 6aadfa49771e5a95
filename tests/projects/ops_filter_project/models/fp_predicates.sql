-- Boolean predicates: LIKE, IN, BETWEEN, IS NULL, NOT, OR.
SELECT id, name, qty, price
FROM source('fp.events')
WHERE (name LIKE 'a%' OR qty IN (7, 8) OR price BETWEEN 100 AND 200)
  AND NOT (note IS NOT NULL AND note = 'skip')
