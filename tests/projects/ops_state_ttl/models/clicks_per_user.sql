SELECT user_id, count(*) AS clicks, max(page) AS last_page
FROM source('ttl.clicks')
GROUP BY user_id
