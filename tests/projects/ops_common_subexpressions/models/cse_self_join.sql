-- The same aggregate written twice (a CTE referenced twice): weir runs it once and
-- joins its output with itself.
WITH per_customer AS (
    SELECT customer, count(*) AS n, sum(amount) AS total
    FROM source('cse.orders')
    GROUP BY customer
)
SELECT a.customer, a.n, b.total
FROM per_customer a
JOIN per_customer b ON a.customer = b.customer
