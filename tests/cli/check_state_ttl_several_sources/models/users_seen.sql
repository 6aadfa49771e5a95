SELECT DISTINCT user_id FROM (
  SELECT user_id FROM source('ttl.clicks')
  UNION ALL
  SELECT user_id FROM source('ttl.profiles')) u
