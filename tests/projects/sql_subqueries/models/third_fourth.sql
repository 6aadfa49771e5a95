SELECT i.id, i.w FROM source('q.inner') i ORDER BY i.w DESC, i.id LIMIT 2 OFFSET 2
