SELECT user_id, count(*) AS n FROM source('ttl.clicks') GROUP BY user_id
