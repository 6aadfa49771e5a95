SELECT user_id FROM source('ttl.clicks') WHERE page = 'a' EXCEPT ALL SELECT user_id FROM source('ttl.clicks') WHERE page = 'b'
