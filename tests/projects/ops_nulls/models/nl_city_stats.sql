-- NULL group keys and NULL values in aggregates.
SELECT
    city,
    COUNT(*)       AS n,
    COUNT(age)     AS n_age,
    SUM(age)       AS sum_age,
    AVG(score)     AS avg_score,
    MIN(name)      AS min_name,
    MAX(name)      AS max_name,
    BOOL_AND(flag) AS all_flag
FROM source('nl.people')
GROUP BY city
