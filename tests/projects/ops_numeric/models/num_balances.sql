-- Sum/avg scale under retraction: PostgreSQL's result scale is the largest scale
-- among the values currently in the group.
SELECT
    grp,
    COUNT(*)        AS n,
    SUM(bal)::text  AS sum_bal_text,
    AVG(bal)::text  AS avg_bal_text,
    SUM(amt)::text  AS sum_amt_text,
    MAX(bal)::text  AS max_bal_text
FROM source('num.accounts')
GROUP BY grp
