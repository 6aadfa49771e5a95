SELECT auction, bidder, price * 0.908 AS price_eur, date_time
FROM source('nexmark.bid')
WHERE price > 10000 AND channel LIKE 'G%'
