SELECT auction, COUNT(DISTINCT bidder) AS bidders
FROM source('nexmark.bid')
GROUP BY auction
