-- Grouping by an interval: '1 day' equals '24 hours' in PostgreSQL.
SELECT span, COUNT(*) AS n
FROM source('num.accounts')
GROUP BY span
