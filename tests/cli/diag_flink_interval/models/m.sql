SELECT window_start, COUNT(*) AS n FROM TUMBLE(source('shop.orders'), created_at, INTERVAL '5' MINUTES) GROUP BY window_start, window_end
