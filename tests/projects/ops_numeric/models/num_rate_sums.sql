-- Float SUM/AVG under retraction: PostgreSQL sums the rows that are there now.
SELECT grp, SUM(rate) AS sum_rate, AVG(rate) AS avg_rate, COUNT(rate) AS n_rate
FROM source('num.accounts')
GROUP BY grp
