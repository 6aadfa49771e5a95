SELECT amount::bigint AS a, CAST(order_id AS text) AS b, '42'::int AS c, '2024-01-01'::date AS d,
       timestamp '2024-01-01 10:00' AS e, 1.5::int AS f, amount::numeric(10,1) AS g, CAST(status AS varchar(3)) AS h,
       created_at::date AS i, true::int AS j, 7::boolean AS k, amount::double precision AS l
FROM source('s.t')
