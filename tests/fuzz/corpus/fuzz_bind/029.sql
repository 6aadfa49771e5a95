SELECT coalesce(amount, 0) AS a, nullif(status, '') AS b, greatest(amount, 1, 2.5) AS c,
       least(created_at, '2024-01-01') AS d, coalesce(status, NULL, 'none') AS e, nullif(order_id, 0) AS f
FROM source('s.t')
