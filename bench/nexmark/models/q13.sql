-- Nexmark q13: bounded side input join (not in the original suite). Enrich every bid with
-- the side input's value for mod(auction, 10000). Flink joins the side input as a lookup
-- table (FOR SYSTEM_TIME AS OF PROCTIME()); here it is a bounded file source, joined as a
-- regular join (the side input is read completely; every bid finds its row).
SELECT B.auction, B.bidder, B.price, B.date_time, S.value
FROM source('nexmark.bid') B
JOIN source('nexmark.side_input') S ON MOD(B.auction, 10000) = S.key
