SELECT tier, string_agg(owner, ',' ORDER BY owner) AS owners, string_agg(DISTINCT owner, '|' ORDER BY owner DESC) AS rev,
       stddev(balance) AS sd, var_pop(balance) AS vp, count(*) AS n
FROM source('x.accounts')
GROUP BY tier
