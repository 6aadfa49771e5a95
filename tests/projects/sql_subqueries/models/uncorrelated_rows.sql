-- uncorrelated scalar subqueries that are not aggregates, in the select list, in CASE
-- and in WHERE: NULL without a row, the value with one, an error with several
SELECT o.id,
       (SELECT i.w FROM source('q.inner') i WHERE i.k = 5) AS w5,
       CASE WHEN o.v > (SELECT i.w FROM source('q.inner') i WHERE i.k = 6) THEN 'above' ELSE 'not above' END AS cmp
FROM source('q.outer') o
WHERE o.v <> coalesce((SELECT i.w FROM source('q.inner') i WHERE i.label = 'cap'), -1)
