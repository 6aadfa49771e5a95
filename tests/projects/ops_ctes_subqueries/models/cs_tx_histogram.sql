-- Accounts per transaction count: a CTE aggregate read through a subquery and
-- aggregated again.
WITH per_account AS (
    SELECT account, COUNT(*) AS n
    FROM source('cs.tx')
    GROUP BY account
)
SELECT n AS tx_count, COUNT(*) AS accounts
FROM (SELECT account, n FROM per_account) AS p
GROUP BY n
