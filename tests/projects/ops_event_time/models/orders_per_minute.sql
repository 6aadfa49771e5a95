-- Orders per key and minute.
SELECT k, window_start, count(*) AS n
FROM TUMBLE(source('et.orders'), ts, INTERVAL '1' MINUTE)
GROUP BY k, window_start, window_end
