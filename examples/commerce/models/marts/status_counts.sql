-- How many orders are in each status, and their average amount.
SELECT
    status,
    COUNT(*)                 AS orders,
    AVG(amount)              AS avg_amount,
    COUNT(DISTINCT customer_id) AS customers
FROM ref('orders_clean')
GROUP BY status
