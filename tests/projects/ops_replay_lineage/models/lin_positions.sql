-- where every row came from: partition and offset (a file's line number), and the
-- message and landing times (NULL for files and in tests)
SELECT e.id,
       e._replay_partition AS part,
       _replay_offset AS pos,
       _replay_timestamp IS NULL AS no_timestamp,
       _replay_landed_at IS NULL AS no_landed_at
FROM source('lin.events') AS e
WHERE e.kind <> 'skip'
