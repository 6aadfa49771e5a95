SELECT order_id
FROM source('s.t')
WHERE created_at > '2024-13-45'
