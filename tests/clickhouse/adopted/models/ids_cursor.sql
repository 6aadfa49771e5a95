SELECT id, kind FROM source('ev_cursor') WHERE id >= ${min_id}
