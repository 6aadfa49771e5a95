SELECT visit_id, local_time AT TIME ZONE zone AS at_utc,
       (local_time AT TIME ZONE zone) AT TIME ZONE 'Asia/Kolkata' AS in_kolkata
FROM source('shop.visits')
