-- deduplication (TopN with limit 1): a user's first click since it was last idle
SELECT user_id, page, ts
FROM (SELECT user_id, page, ts, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY ts) AS rn
      FROM source('ttl.clicks')) c
WHERE rn = 1
