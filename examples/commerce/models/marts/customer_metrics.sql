-- Lifetime spend per customer, kept up to date as orders arrive.
SELECT
    customer_id,
    COUNT(*)    AS order_count,
    SUM(amount) AS total_spend,
    MAX(amount) AS largest_order
FROM ref('orders_clean')
GROUP BY customer_id
