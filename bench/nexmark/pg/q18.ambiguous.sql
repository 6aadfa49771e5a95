-- Ties that make q18's "last bid" unspecified: several bids of a bidder on an auction at
-- its latest date_time (columns: q18's partition and order columns).
SELECT bidder, auction, date_time, count(*) AS bids
FROM (SELECT bidder, auction, date_time,
             rank() OVER (PARTITION BY bidder, auction ORDER BY date_time DESC) AS r FROM bid) AS t
WHERE r = 1
GROUP BY bidder, auction, date_time
HAVING count(*) > 1
