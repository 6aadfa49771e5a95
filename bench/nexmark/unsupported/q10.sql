-- Nexmark q10 with Flink's DATE_FORMAT spelled as PostgreSQL's to_char.
-- NOT RUN: `weir check` says
--   error: function to_char(timestamp without time zone, unknown) is not supported yet
-- models/q10.sql (and q15-q17) use casts instead; PostgreSQL's check (pg/q10.sql) uses
-- to_char, so the two spellings are compared on every run.
SELECT auction, bidder, price, date_time, extra,
       to_char(date_time, 'YYYY-MM-DD') AS dt,
       to_char(date_time, 'HH24:MI') AS hm
FROM source('nexmark.bid')
