-- an updating stream: a lookup could not retract what a count joined
SELECT c.kind, c.n, k.label
FROM (SELECT kind, count(*) AS n FROM source('ev') GROUP BY kind) AS c
JOIN source('kinds') AS k ON c.kind = k.kind
