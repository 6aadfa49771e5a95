-- Nexmark q19: auction top-10 price (not in the original suite). The 10 highest bids of
-- each auction, with their rank: an incremental TopN.
SELECT * FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC) AS rank_number
    FROM source('nexmark.bid')
) AS B
WHERE rank_number <= 10
