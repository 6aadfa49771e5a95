SELECT tier, owner, sum(balance) AS total, GROUPING(tier, owner) AS g
FROM source('x.accounts')
GROUP BY ROLLUP (tier, owner)
