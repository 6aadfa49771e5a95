-- LIMIT 0 in subqueries: no row (NULL, FALSE, NOT IN over nothing is TRUE)
SELECT o.id,
       (SELECT i.w FROM source('q.inner') i WHERE i.k = o.k LIMIT 0) AS none_w,
       EXISTS (SELECT 1 FROM source('q.inner') i WHERE i.k = o.k LIMIT 0) AS none_e,
       o.k NOT IN (SELECT i.k FROM source('q.inner') i ORDER BY i.w LIMIT 0) AS not_in
FROM source('q.outer') o
