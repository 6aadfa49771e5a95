-- Nexmark q0: pass through (not in the original suite). Measures the cost of reading and
-- decoding bids with no computation.
SELECT auction, bidder, price, date_time, extra
FROM source('nexmark.bid')
