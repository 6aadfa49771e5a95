SELECT id, ${raw:kind_expr} AS kind ${raw:at}
FROM source('ev')
WHERE id >= ${min_id}
