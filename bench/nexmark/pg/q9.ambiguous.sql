-- Ties that make q9's winning bid unspecified: several bids of an auction with the
-- highest price at the same earliest time (columns: q9's partition and order columns).
SELECT id, price, bid_date_time, count(*) AS bids
FROM (SELECT A.id, B.price, B.date_time AS bid_date_time,
             rank() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.date_time ASC) AS r
      FROM auction A, bid B
      WHERE A.id = B.auction AND B.date_time BETWEEN A.date_time AND A.expires) AS t
WHERE r = 1
GROUP BY id, price, bid_date_time
HAVING count(*) > 1
