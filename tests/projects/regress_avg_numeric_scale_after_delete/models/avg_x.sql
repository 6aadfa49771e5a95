-- Found by tests/differential/difftest.py (seeds 2725 and 1665 at the time): the
-- result of AVG(numeric) must depend only on the rows that remain. After the row with
-- the largest display scale (20 digits) is deleted, weir still divides a sum kept at
-- scale 20 and answers 1.66666666666666666667 where PostgreSQL answers
-- 1.6666666666666667 (a different value, not only a different spelling). SUM shows
-- the same stale scale as text (5.00000000000000000000 instead of 5.0).
SELECT g, AVG(x) AS avg_x, CAST(SUM(x) AS text) AS sum_x_text
FROM source('t.events')
GROUP BY g
