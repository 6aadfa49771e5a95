SELECT DISTINCT user_id, page FROM source('ttl.clicks')
