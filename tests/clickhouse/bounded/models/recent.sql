SELECT id, ${kind_expr} AS kind ${at}
FROM source('ev')
WHERE id >= ${min_id}
