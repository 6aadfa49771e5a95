SELECT kind, COUNT(*) AS n FROM source('ev_offsets') WHERE id >= ${min_id} GROUP BY kind
