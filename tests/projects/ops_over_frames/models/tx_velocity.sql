-- Per transaction: what the account spent in the minute up to it (RANGE frame), its
-- last three transactions (ROWS frame), the previous amount and the time since it.
SELECT tx_id, account, amount,
       sum(amount) OVER (PARTITION BY account ORDER BY at RANGE BETWEEN INTERVAL '1' MINUTE PRECEDING AND CURRENT ROW) AS spent_1m,
       count(*) OVER (PARTITION BY account ORDER BY at RANGE BETWEEN INTERVAL '1' MINUTE PRECEDING AND CURRENT ROW) AS tx_1m,
       max(amount) OVER last3 AS max_last3,
       avg(amount) OVER last3 AS avg_last3,
       lag(amount) OVER w AS prev_amount,
       at - lag(at, 1, at) OVER w AS since_prev,
       first_value(amount) OVER w AS first_amount
FROM source('bank.tx')
WINDOW w AS (PARTITION BY account ORDER BY at),
       last3 AS (PARTITION BY account ORDER BY at ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)
