SELECT tier,
       mode() WITHIN GROUP (ORDER BY owner) AS top_owner,
       mode() WITHIN GROUP (ORDER BY owner DESC) AS top_owner_desc,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY balance) AS median,
       percentile_cont(0.25) WITHIN GROUP (ORDER BY balance DESC) AS p25_desc,
       percentile_disc(0.5) WITHIN GROUP (ORDER BY balance) AS median_disc,
       percentile_disc(0.9) WITHIN GROUP (ORDER BY owner) FILTER (WHERE balance > 1) AS p90_owner
FROM source('x.accounts')
GROUP BY tier
