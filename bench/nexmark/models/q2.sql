-- Nexmark q2: selection. Bids on every 123rd auction (Flink's variant of the original
-- five fixed auction ids).
SELECT auction, price
FROM source('nexmark.bid')
WHERE MOD(auction, 123) = 0
