-- SESSION(10 s) per bidder, as gaps and islands: a bid starts a new session when it comes
-- 10 s or more after the bidder's previous bid; a session is [first bid, last bid + 10 s).
WITH marked AS (
    SELECT bidder, date_time,
           CASE WHEN date_time - lag(date_time) OVER (PARTITION BY bidder ORDER BY date_time)
                     < INTERVAL '10 seconds' THEN 0 ELSE 1 END AS starts
    FROM bid
), numbered AS (
    SELECT bidder, date_time,
           sum(starts) OVER (PARTITION BY bidder ORDER BY date_time, starts DESC
                             ROWS UNBOUNDED PRECEDING) AS session
    FROM marked
)
SELECT bidder, count(*) AS bid_count, min(date_time) AS starttime,
       max(date_time) + INTERVAL '10 seconds' AS endtime
FROM numbered
GROUP BY bidder, session
