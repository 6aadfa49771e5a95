-- Nexmark q21: add channel id (not in the original suite). CASE WHEN plus Flink's
-- REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2), written with position/substr/
-- split_part (weir has no regular expressions yet): the text after '&channel_id=' up to
-- the next '&'. The generator's URLs never start with 'channel_id=' (the '^' branch).
-- PostgreSQL's check uses the regular expression itself (bench/nexmark/pg/q21.sql).
SELECT
    auction, bidder, price, channel,
    CASE
        WHEN lower(channel) = 'apple' THEN '0'
        WHEN lower(channel) = 'google' THEN '1'
        WHEN lower(channel) = 'facebook' THEN '2'
        WHEN lower(channel) = 'baidu' THEN '3'
        WHEN position('&channel_id=' IN url) > 0
            THEN split_part(substr(url, position('&channel_id=' IN url) + 12), '&', 1)
    END AS channel_id
FROM source('nexmark.bid')
WHERE position('&channel_id=' IN url) > 0
   OR lower(channel) IN ('apple', 'google', 'facebook', 'baidu')
