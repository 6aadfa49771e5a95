SELECT tier, count(*) AS n FROM source('x.accounts') GROUP BY tier
UNION ALL SELECT 'any', 0
UNION ALL SELECT t.tier, t.n FROM (VALUES ('none', -1), ('void', -2)) AS t(tier, n)
