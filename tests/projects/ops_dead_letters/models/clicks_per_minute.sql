-- Clicks per user and minute: a row whose minute has closed is late.
SELECT user_id, window_start, count(*) AS clicks
FROM TUMBLE(source('dl.clicks'), ts, INTERVAL '1' MINUTE)
GROUP BY user_id, window_start, window_end
