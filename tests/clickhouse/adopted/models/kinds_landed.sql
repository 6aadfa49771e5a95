SELECT kind, COUNT(*) AS n FROM source('ev_landed') WHERE id >= ${min_id} GROUP BY kind
