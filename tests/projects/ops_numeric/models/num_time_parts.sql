-- More date/time parts and interval arithmetic.
SELECT
    id,
    date_trunc('week', ts)              AS ts_week,
    date_trunc('quarter', ts)           AS ts_quarter,
    extract(isodow from ts)             AS isodow,
    extract(doy from ts)                AS doy,
    extract(week from ts)               AS iso_week,
    extract(quarter from ts)            AS quarter,
    extract(milliseconds from ts)::text AS ms_text,
    extract(epoch from dur)::text       AS dur_epoch_text,
    extract(hour from dur)              AS dur_hours,
    (dur * 1.5)::text                   AS dur_x15_text,
    (dur / 4)::text                     AS dur_quarter_text,
    ts::date + 1                        AS next_day,
    t2::date - ts::date                 AS days_between,
    ts - interval '1 month'             AS month_before
FROM source('num.readings')
