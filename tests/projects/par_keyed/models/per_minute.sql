-- windows by key: late orders go to the dead letters
SELECT customer_id, window_start, window_end, count(*) AS n, sum(amount) AS total
FROM TUMBLE(source('shop.orders'), ts, INTERVAL '1' MINUTE)
GROUP BY customer_id, window_start, window_end
