SELECT user_id FROM source('ttl.clicks') WHERE page = 'a' INTERSECT SELECT user_id FROM source('ttl.clicks') WHERE page = 'b'
