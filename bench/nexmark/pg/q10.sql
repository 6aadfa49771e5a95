-- Flink's DATE_FORMAT(dateTime, 'yyyy-MM-dd') / 'HH:mm' as to_char, checking weir's casts.
SELECT auction, bidder, price, date_time, extra,
       to_char(date_time, 'YYYY-MM-DD') AS dt,
       to_char(date_time, 'HH24:MI') AS hm
FROM bid
