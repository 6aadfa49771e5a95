SELECT user_id FROM source('ttl.clicks') INTERSECT SELECT user_id FROM source('ttl.profiles')
