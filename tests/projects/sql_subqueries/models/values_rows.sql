-- subqueries inside VALUES rows
SELECT t.label, t.n
FROM (VALUES ('inner rows', (SELECT count(*) FROM source('q.inner'))),
             ('w of id 1', (SELECT i.w FROM source('q.inner') i WHERE i.id = 1))) AS t(label, n)
