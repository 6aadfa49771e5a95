-- a global aggregate (one group) over a user that is idle for hours at a time
SELECT count(*) AS clicks, max(page) AS last_page
FROM source('ttl.clicks')
WHERE user_id = 15
