-- Nexmark q10: log to file system (not in the original suite). Every bid with its day
-- and minute, written to a file (Flink: partitioned CSV files). DATE_FORMAT is written
-- with casts: the date's text is 'YYYY-MM-DD', and characters 12-16 of a timestamp's text
-- are 'HH:MM' (PostgreSQL: to_char(date_time, 'YYYY-MM-DD') and 'HH24:MI').
SELECT auction, bidder, price, date_time, extra,
       CAST(CAST(date_time AS date) AS text) AS dt,
       substr(CAST(date_time AS text), 12, 5) AS hm
FROM source('nexmark.bid')
