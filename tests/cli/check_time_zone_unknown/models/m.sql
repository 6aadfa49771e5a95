SELECT visit_id, local_time AT TIME ZONE 'Europe/Berln' AS at_utc
FROM source('shop.visits')
