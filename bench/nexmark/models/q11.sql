-- Nexmark q11: user sessions (not in the original suite). How many bids each user made in
-- each session of activity (a session ends after 10 seconds without a bid): SESSION
-- windows per bidder.
SELECT bidder, count(*) AS bid_count, window_start AS starttime, window_end AS endtime
FROM SESSION(source('nexmark.bid'), date_time, INTERVAL '10' SECOND)
GROUP BY bidder, window_start, window_end
