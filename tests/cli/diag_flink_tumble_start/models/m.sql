SELECT TUMBLE_START(created_at, INTERVAL '5' MINUTE) AS ws, COUNT(*) AS n FROM source('shop.orders') GROUP BY TUMBLE(created_at, INTERVAL '5' MINUTE)
