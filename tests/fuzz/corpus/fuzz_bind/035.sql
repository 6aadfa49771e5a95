WITH paid AS (
    SELECT customer_id, amount FROM source('s.t') WHERE status = 'paid'
)
SELECT customer_id, sum(amount) AS paid_total
FROM paid
GROUP BY 1
