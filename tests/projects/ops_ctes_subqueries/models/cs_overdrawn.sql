-- An aggregate in a FROM subquery, filtered outside (a HAVING in disguise).
SELECT account, balance
FROM (
    SELECT account,
           SUM(CASE WHEN kind = 'credit' THEN amount ELSE -amount END) AS balance
    FROM source('cs.tx')
    GROUP BY account
) AS b
WHERE balance < 0
