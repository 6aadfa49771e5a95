-- Nexmark q7: highest bid. The bids with the highest price of each 10-second window:
-- a tumbling-window MAX joined back to the bids of that window (an interval join).
SELECT B.auction, B.price, B.bidder, B.date_time, B.extra
FROM source('nexmark.bid') B
JOIN (
    SELECT MAX(price) AS maxprice, window_end AS date_time
    FROM TUMBLE(source('nexmark.bid'), date_time, INTERVAL '10' SECOND)
    GROUP BY window_start, window_end
) B1
ON B.price = B1.maxprice
WHERE B.date_time BETWEEN B1.date_time - INTERVAL '10' SECOND AND B1.date_time
