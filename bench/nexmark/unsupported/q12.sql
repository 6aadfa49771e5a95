-- Nexmark q12: processing-time windows (Flink: TUMBLE over PROCTIME()).
-- NOT RUN: weir has no processing time. `weir check` says
--   error: function proctime() does not exist
-- and for PostgreSQL's spelling of the clock, now(): "function now() is not supported
-- yet". Results over processing time depend on when rows arrive, so they cannot be
-- tested deterministically or compared with PostgreSQL. models/q12_eventtime.sql is the
-- same aggregation over event time (date_time), labelled as such.
WITH B AS (SELECT *, PROCTIME() AS p_time FROM source('nexmark.bid'))
SELECT bidder, count(*) AS bid_count, window_start AS starttime, window_end AS endtime
FROM TUMBLE(B, p_time, INTERVAL '10' SECOND)
GROUP BY bidder, window_start, window_end
