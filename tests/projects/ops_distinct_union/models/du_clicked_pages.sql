-- DISTINCT over an insert-only source.
SELECT DISTINCT lower(page) AS page
FROM source('du.clicks')
