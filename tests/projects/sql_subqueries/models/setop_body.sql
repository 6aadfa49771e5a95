-- set operations as subquery bodies, their branches correlated
SELECT o.id,
       EXISTS (SELECT i.k FROM source('q.inner') i WHERE i.k = o.k
               INTERSECT SELECT i.k FROM source('q.inner') i WHERE i.w > 5) AS big_k,
       (SELECT i.w FROM source('q.inner') i WHERE i.k = o.k UNION SELECT o.v ORDER BY 1 DESC LIMIT 1) AS top_w
FROM source('q.outer') o
