SELECT window_start, COUNT(*) AS n FROM TUMBLE(source('shop.orders'), created_at, INTERVAL '1' MINUTE) GROUP BY window_start, window_end
