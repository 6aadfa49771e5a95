SELECT id, kind FROM source('ev') WHERE id > 0
