-- DISTINCT, GROUP BY and LIMIT in subquery bodies, correlated and not
SELECT o.id,
       o.k IN (SELECT DISTINCT i.k FROM source('q.inner') i WHERE i.w > o.v) AS hit,
       EXISTS (SELECT 1 FROM source('q.inner') i WHERE i.k = o.k LIMIT 1) AS any_k,
       (SELECT s.n FROM (SELECT i.k, count(*) AS n FROM source('q.inner') i GROUP BY i.k) s WHERE s.k = o.k) AS n_k,
       (SELECT max(s.n) FROM (SELECT i.k, count(*) AS n FROM source('q.inner') i GROUP BY i.k) s) AS n_max,
       (SELECT i.flag FROM source('q.inner') i WHERE i.id = o.id) AS flag
FROM source('q.outer') o
