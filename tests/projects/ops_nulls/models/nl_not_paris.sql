-- A WHERE clause keeps a row only when it is true, never when it is NULL.
SELECT id, city
FROM source('nl.people')
WHERE city IS DISTINCT FROM 'paris' AND NOT (age < 18)
