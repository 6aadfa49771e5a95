-- 100 / weight fails for weight 0: that row is rejected, the others pass.
SELECT user_id, page, 100 / weight AS share
FROM source('dl.clicks')
