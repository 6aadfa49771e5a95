SELECT window_start, window_end, COUNT(*) AS orders, SUM(amount) AS total
FROM TUMBLE(source('shop.orders'), created_at, INTERVAL '10' SECOND)
GROUP BY window_start, window_end
