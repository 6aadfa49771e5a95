SELECT window_start, window_end, customer_id, COUNT(*) AS orders, SUM(amount) AS total
FROM TUMBLE(source('shop.orders'), created_at, INTERVAL '1' MINUTE)
WHERE status <> 'cancelled'
GROUP BY window_start, window_end, customer_id
