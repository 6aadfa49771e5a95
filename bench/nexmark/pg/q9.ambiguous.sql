-- Ties that make q9's winning bid unspecified: equal price and time at the top.
SELECT id, count(*) AS bids
FROM (SELECT A.id, rank() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.date_time ASC) AS r
      FROM auction A, bid B
      WHERE A.id = B.auction AND B.date_time BETWEEN A.date_time AND A.expires) AS t
WHERE r = 1
GROUP BY id
HAVING count(*) > 1
