SELECT bidder, count(*) AS bid_count,
       date_bin(INTERVAL '10 seconds', date_time, TIMESTAMP '1970-01-01') AS starttime,
       date_bin(INTERVAL '10 seconds', date_time, TIMESTAMP '1970-01-01') + INTERVAL '10 seconds' AS endtime
FROM bid
GROUP BY bidder, date_bin(INTERVAL '10 seconds', date_time, TIMESTAMP '1970-01-01')
