-- the replay lineage of an adopted table: the columns its replay_boundary maps
SELECT id, _replay_partition AS part, _replay_offset AS off FROM source('ev_offsets')
