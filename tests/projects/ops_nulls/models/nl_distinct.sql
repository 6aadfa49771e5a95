-- DISTINCT treats NULLs as equal.
SELECT DISTINCT city, flag
FROM source('nl.people')
