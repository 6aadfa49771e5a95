-- One CTE read twice, by both branches of a UNION ALL.
WITH t AS (
    SELECT account, amount FROM source('cs.tx') WHERE amount > 0
)
SELECT account, amount, 'pos' AS side FROM t
UNION ALL
SELECT account, -amount, 'neg' FROM t WHERE amount > 100
