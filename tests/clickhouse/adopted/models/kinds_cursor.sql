SELECT kind, COUNT(*) AS n FROM source('ev_cursor') WHERE id >= ${min_id} GROUP BY kind
