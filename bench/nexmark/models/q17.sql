-- Nexmark q17: auction statistics report (not in the original suite). Per auction and day:
-- bid counts at three price levels and min/max/avg/sum of the price. An unbounded GROUP BY.
SELECT
    auction,
    CAST(CAST(date_time AS date) AS text) AS day,
    count(*) AS total_bids,
    count(*) FILTER (WHERE price < 10000) AS rank1_bids,
    count(*) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_bids,
    count(*) FILTER (WHERE price >= 1000000) AS rank3_bids,
    min(price) AS min_price,
    max(price) AS max_price,
    avg(price) AS avg_price,
    sum(price) AS sum_price
FROM source('nexmark.bid')
GROUP BY auction, CAST(CAST(date_time AS date) AS text)
