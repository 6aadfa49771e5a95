-- per tier: the owners in id order, the distinct owners descending, the balances as
-- json (NULL included), the large balances ascending, and owner -> balance as json
SELECT tier,
       array_agg(owner ORDER BY id) AS owners,
       array_agg(DISTINCT owner ORDER BY owner DESC) AS distinct_owners,
       json_agg(balance ORDER BY id) AS balances,
       array_agg(balance ORDER BY balance NULLS FIRST) FILTER (WHERE balance > 5) AS large,
       json_object_agg(owner, balance ORDER BY id) AS by_owner,
       count(*) AS n
FROM source('a.accounts')
GROUP BY tier
