-- Nexmark q14: calculation (not in the original suite). Bid times classified by hour, and
-- Flink's count_char(extra, 'c') UDF written as an expression: the number of 'c's is the
-- length lost by removing them.
SELECT auction, bidder, 0.908 * price AS price,
       CASE
           WHEN EXTRACT(HOUR FROM date_time) >= 8 AND EXTRACT(HOUR FROM date_time) <= 18 THEN 'dayTime'
           WHEN EXTRACT(HOUR FROM date_time) <= 6 OR EXTRACT(HOUR FROM date_time) >= 20 THEN 'nightTime'
           ELSE 'otherTime'
       END AS bid_time_type,
       date_time, extra,
       length(extra) - length(replace(extra, 'c', '')) AS c_counts
FROM source('nexmark.bid')
WHERE 0.908 * price > 1000000 AND 0.908 * price < 50000000
