-- Found by tests/differential/difftest.py (seed 4851 at the time): SUM/AVG over double
-- precision must be the sum of the rows that remain. Subtracting a retracted large
-- value from a running float sum loses the small values added while it was there:
-- 3e9 + 12.0000001 - 3e9 is 12 in binary floating point, PostgreSQL says 12.0000001.
SELECT g, SUM(f) AS sum_f, AVG(f) AS avg_f, COUNT(*) AS n
FROM source('t.readings')
GROUP BY g
