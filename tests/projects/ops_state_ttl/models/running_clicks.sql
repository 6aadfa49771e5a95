-- a running count per user (OVER), counting from the first click after an idle hour
SELECT user_id, page, ts, count(*) OVER (PARTITION BY user_id ORDER BY ts) AS n
FROM source('ttl.clicks')
