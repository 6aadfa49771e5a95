SELECT auction, COUNT(*) AS bids, SUM(price) AS volume, MAX(price) AS top_price
FROM source('nexmark.bid')
GROUP BY auction
