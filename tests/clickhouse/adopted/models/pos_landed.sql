SELECT id, _replay_landed_at AS landed FROM source('ev_landed')
