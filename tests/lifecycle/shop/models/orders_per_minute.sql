SELECT window_start, window_end, COUNT(*) AS n, SUM(amount) AS total
FROM TUMBLE(ref('orders_clean'), created_at, INTERVAL '1' MINUTE)
GROUP BY window_start, window_end
