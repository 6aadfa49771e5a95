-- Flink's count_char UDF counted directly (characters of extra equal to 'c').
SELECT auction, bidder, 0.908 * price AS price,
       CASE
           WHEN EXTRACT(HOUR FROM date_time) >= 8 AND EXTRACT(HOUR FROM date_time) <= 18 THEN 'dayTime'
           WHEN EXTRACT(HOUR FROM date_time) <= 6 OR EXTRACT(HOUR FROM date_time) >= 20 THEN 'nightTime'
           ELSE 'otherTime'
       END AS bid_time_type,
       date_time, extra,
       (SELECT count(*) FROM regexp_split_to_table(extra, '') AS ch WHERE ch = 'c') AS c_counts
FROM bid
WHERE 0.908 * price > 1000000 AND 0.908 * price < 50000000
