SELECT id, kind FROM source('ev_landed') WHERE id >= ${min_id}
