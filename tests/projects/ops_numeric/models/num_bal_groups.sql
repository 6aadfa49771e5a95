-- Grouping by a numeric value: 1.0 and 1.00 are equal, so they are one group.
SELECT bal, COUNT(*) AS n
FROM source('num.accounts')
GROUP BY bal
