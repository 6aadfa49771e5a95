-- e.* (like *) leaves the lineage columns out
SELECT e.* FROM source('lin.events') AS e WHERE _replay_offset >= 0
