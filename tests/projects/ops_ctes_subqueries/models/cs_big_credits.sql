-- Two chained CTEs; the key (tx_id) is projected away, so the output is keyless.
WITH credits AS (
    SELECT tx_id, account, amount
    FROM source('cs.tx')
    WHERE kind = 'credit'
), big AS (
    SELECT tx_id, account, amount * 2 AS doubled
    FROM credits
    WHERE amount >= 10
)
SELECT account, doubled FROM big
