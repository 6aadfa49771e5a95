-- Net quantity per symbol over a composite-key source.
SELECT symbol, SUM(qty) AS net_qty, COUNT(*) AS holders
FROM source('up.positions')
GROUP BY symbol
