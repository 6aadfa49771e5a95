-- Nexmark q22: get URL directories (not in the original suite). Flink's
-- SPLIT_INDEX(url, '/', 3|4|5) is 0-based; PostgreSQL's split_part is 1-based.
SELECT
    auction, bidder, price, channel,
    split_part(url, '/', 4) AS dir1,
    split_part(url, '/', 5) AS dir2,
    split_part(url, '/', 6) AS dir3
FROM source('nexmark.bid')
