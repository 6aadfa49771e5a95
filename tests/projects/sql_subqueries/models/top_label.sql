-- ORDER BY ... LIMIT in a correlated scalar subquery: a TopN per outer value
SELECT o.id,
       (SELECT i.label FROM source('q.inner') i WHERE i.k = o.k ORDER BY i.w DESC, i.id LIMIT 1) AS top_label
FROM source('q.outer') o
