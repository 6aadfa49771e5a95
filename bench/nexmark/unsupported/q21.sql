-- Nexmark q21 with a regular expression, as Flink (REGEXP_EXTRACT) and RisingWave
-- ((regexp_match(...))[2]) write it.
-- NOT RUN: `weir check` says
--   error: subscript or field selection is not supported yet
-- and regexp_match itself: "function regexp_match(text, unknown) is not supported yet".
-- models/q21.sql extracts the same text with position/substr/split_part; PostgreSQL's
-- check (pg/q21.sql) uses this regular expression, so the two are compared on every run.
SELECT
    auction, bidder, price, channel,
    CASE
        WHEN lower(channel) = 'apple' THEN '0'
        WHEN lower(channel) = 'google' THEN '1'
        WHEN lower(channel) = 'facebook' THEN '2'
        WHEN lower(channel) = 'baidu' THEN '3'
        ELSE (regexp_match(url, '(&|^)channel_id=([^&]*)'))[2]
    END AS channel_id
FROM source('nexmark.bid')
WHERE (regexp_match(url, '(&|^)channel_id=([^&]*)'))[2] IS NOT NULL
   OR lower(channel) IN ('apple', 'google', 'facebook', 'baidu')
