-- the collecting aggregates in an event-time window (final rows when the window closes)
SELECT window_start, array_agg(v ORDER BY ts DESC) AS vs, json_agg(id ORDER BY id) AS ids
FROM TABLE(TUMBLE(TABLE source('a.events'), DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end
