-- Aggregates of timestamps and intervals per day.
SELECT
    date_trunc('day', ts)   AS day,
    COUNT(*)                AS n,
    MIN(ts)                 AS first_ts,
    MAX(ts)                 AS last_ts,
    SUM(dur)::text          AS total_dur_text,
    AVG(dur)::text          AS avg_dur_text,
    MAX(t2 - ts)            AS max_elapsed
FROM source('num.readings')
GROUP BY date_trunc('day', ts)
