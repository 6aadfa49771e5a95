-- Timestamps and intervals: date_trunc, extract, date_part, arithmetic.
SELECT
    id,
    date_trunc('hour', ts)            AS ts_hour,
    date_trunc('month', ts)           AS ts_month,
    extract(hour from ts)             AS ts_hr,
    extract(dow from ts)              AS ts_dow,
    extract(epoch from ts)::text      AS ts_epoch_text,
    extract(second from ts)::text     AS ts_second_text,
    date_part('minute', ts)           AS ts_minute,
    (t2 - ts)::text                   AS elapsed_text,
    ts + interval '90 minutes'        AS ts_plus_90m,
    ts + dur                          AS ts_plus_dur,
    (dur * 2)::text                   AS dur_twice_text,
    ts::date                          AS ts_day
FROM source('num.readings')
