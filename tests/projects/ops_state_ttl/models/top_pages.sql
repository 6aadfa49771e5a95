-- a user's two highest pages (TopN, retracting): an idle partition is forgotten
SELECT user_id, page, ts
FROM (SELECT user_id, page, ts, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY page DESC) AS rn
      FROM source('ttl.clicks')) c
WHERE rn <= 2
