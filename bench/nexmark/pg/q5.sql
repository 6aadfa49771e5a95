-- HOP(2 s slide, 10 s size): each bid is in the 5 windows whose start (aligned to the
-- epoch) lies in (date_time - 10 s, date_time].
WITH hop AS (
    SELECT b.*, ws AS window_start, ws + INTERVAL '10 seconds' AS window_end
    FROM bid b,
         generate_series(date_bin(INTERVAL '2 seconds', b.date_time, TIMESTAMP '1970-01-01') - INTERVAL '8 seconds',
                         date_bin(INTERVAL '2 seconds', b.date_time, TIMESTAMP '1970-01-01'),
                         INTERVAL '2 seconds') AS ws
), counts AS (
    SELECT auction, count(*) AS num, window_start AS starttime, window_end AS endtime
    FROM hop GROUP BY auction, window_start, window_end
)
SELECT AuctionBids.auction, AuctionBids.num
FROM counts AS AuctionBids
JOIN (SELECT max(num) AS maxn, starttime, endtime FROM counts GROUP BY starttime, endtime) AS MaxBids
  ON AuctionBids.starttime = MaxBids.starttime
 AND AuctionBids.endtime = MaxBids.endtime
 AND AuctionBids.num >= MaxBids.maxn
