-- Nexmark q13 as Flink writes it: a lookup (temporal) join of each bid to the side input
-- as of the bid's processing time.
-- NOT RUN: `FOR SYSTEM_TIME AS OF` is not PostgreSQL syntax; `weir check` says
--   error: syntax error at or near "FOR"
-- and PROCTIME() does not exist (see q12.sql). models/q13.sql joins the bounded side
-- input with a regular join, which gives the same rows because the side input never
-- changes.
SELECT B.auction, B.bidder, B.price, B.date_time, S.value
FROM (SELECT *, PROCTIME() AS p_time FROM source('nexmark.bid')) B
JOIN source('nexmark.side_input') FOR SYSTEM_TIME AS OF B.p_time AS S
ON mod(B.auction, 10000) = S.key
