-- updating input: a balance can be retracted, so every value is kept
SELECT region, MAX(balance) AS richest FROM source('shop.accounts') GROUP BY region
