-- Nexmark q18: find last bid (not in the original suite). Each bidder's latest bid on each
-- auction: ROW_NUMBER() = 1 ordered by time descending, i.e. deduplication keeping the last.
SELECT auction, bidder, price, channel, url, date_time, extra
FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder, auction ORDER BY date_time DESC) AS rank_number
    FROM source('nexmark.bid')
) AS B
WHERE rank_number <= 1
