SELECT id, kind FROM source('ev_offsets') WHERE id >= ${min_id}
