SELECT kind, COUNT(*) AS n FROM source('ev') GROUP BY kind
