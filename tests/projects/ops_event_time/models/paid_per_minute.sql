-- Paid orders per minute of the order: a window over the interval join.
SELECT window_start, count(*) AS n
FROM TUMBLE(ref('paid'), ts, INTERVAL '1' MINUTE)
GROUP BY window_start, window_end
