-- TUMBLE(10 s): window_start = date_bin(10 s, date_time, epoch), window_end = start + 10 s.
SELECT B.auction, B.price, B.bidder, B.date_time, B.extra
FROM bid B
JOIN (
    SELECT MAX(price) AS maxprice,
           date_bin(INTERVAL '10 seconds', date_time, TIMESTAMP '1970-01-01') + INTERVAL '10 seconds' AS date_time
    FROM bid
    GROUP BY date_bin(INTERVAL '10 seconds', date_time, TIMESTAMP '1970-01-01')
) B1
ON B.price = B1.maxprice
WHERE B.date_time BETWEEN B1.date_time - INTERVAL '10' SECOND AND B1.date_time
