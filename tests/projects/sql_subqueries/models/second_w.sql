-- ORDER BY ... LIMIT ... OFFSET in a correlated subquery (the second largest w per k)
-- and in the model's own query (the third and fourth rows by w)
SELECT o.id,
       (SELECT i.w FROM source('q.inner') i WHERE i.k = o.k ORDER BY i.w DESC, i.id LIMIT 1 OFFSET 1) AS second_w
FROM source('q.outer') o
