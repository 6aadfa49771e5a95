-- NULL in expressions: COALESCE, NULLIF, || versus concat(), IS [NOT] DISTINCT FROM,
-- GREATEST/LEAST (ignore NULLs), CASE without ELSE, three-valued AND/OR/NOT.
SELECT
    id,
    coalesce(city, 'unknown')           AS city,
    nullif(city, '')                    AS city_or_null,
    name || '@' || city                 AS concat_op,
    concat(name, '@', city)             AS concat_fn,
    concat_ws('-', name, city, age)     AS concat_ws,
    age + 1                             AS age_next,
    age IS NULL                         AS age_missing,
    city IS DISTINCT FROM 'paris'       AS not_paris,
    city <> 'paris'                     AS neq_paris,
    greatest(age, 18)                   AS age_floor,
    least(age, 65)                      AS age_cap,
    CASE WHEN age >= 18 THEN 'adult'
         WHEN age < 18 THEN 'minor' END AS age_class,
    NOT flag                            AS not_flag,
    flag OR age > 30                    AS flag_or_old,
    flag AND age > 30                   AS flag_and_old
FROM source('nl.people')
