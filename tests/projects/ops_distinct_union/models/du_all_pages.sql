-- DISTINCT over a UNION ALL in a subquery.
SELECT DISTINCT page
FROM (
    SELECT page FROM source('du.clicks')
    UNION ALL
    SELECT page FROM source('du.visits')
) AS u
