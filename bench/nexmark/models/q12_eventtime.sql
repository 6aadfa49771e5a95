-- Nexmark q12-eventtime: Flink's q12 counts each user's bids per 10-second window of
-- PROCESSING time (PROCTIME()), which is non-deterministic by design and which weir does
-- not have. This is the same query over event time: a tumbling window on date_time.
-- It is NOT q12; bench/README.md lists q12 itself as unsupported.
SELECT bidder, count(*) AS bid_count, window_start AS starttime, window_end AS endtime
FROM TUMBLE(source('nexmark.bid'), date_time, INTERVAL '10' SECOND)
GROUP BY bidder, window_start, window_end
