-- the newest position per kind
SELECT kind, max(_replay_offset) AS last_pos, count(*) AS n
FROM source('lin.events')
GROUP BY kind
