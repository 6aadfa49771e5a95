-- Nexmark q20: expand bid with auction (not in the original suite). Bids joined with their
-- auction, for auctions in category 10: a filtered join.
SELECT
    auction, bidder, price, channel, url, B.date_time AS bid_date_time, B.extra AS bid_extra,
    item_name, description, initial_bid, reserve, A.date_time AS auction_date_time, expires, seller,
    category, A.extra AS auction_extra
FROM source('nexmark.bid') AS B
INNER JOIN source('nexmark.auction') AS A ON B.auction = A.id
WHERE A.category = 10
