-- Nexmark q9: winning bids (not in the original suite). The winning bid of each auction:
-- highest price, earliest on ties, among the bids made while the auction was open. TopN 1.
SELECT id, item_name, description, initial_bid, reserve, date_time, expires, seller, category, extra,
       auction, bidder, price, bid_date_time, bid_extra
FROM (
    SELECT A.*, B.auction, B.bidder, B.price, B.date_time AS bid_date_time, B.extra AS bid_extra,
           ROW_NUMBER() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.date_time ASC) AS rownum
    FROM source('nexmark.auction') A, source('nexmark.bid') B
    WHERE A.id = B.auction AND B.date_time BETWEEN A.date_time AND A.expires
) AS W
WHERE rownum <= 1
