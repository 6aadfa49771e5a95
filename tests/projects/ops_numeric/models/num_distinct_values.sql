-- COUNT(DISTINCT) by value equality: 1.0 = 1.00, '1 day' = '24 hours', 0 = -0.
SELECT grp,
       COUNT(DISTINCT bal)  AS distinct_bal,
       COUNT(DISTINCT span) AS distinct_span,
       COUNT(DISTINCT rate) AS distinct_rate
FROM source('num.accounts')
GROUP BY grp
