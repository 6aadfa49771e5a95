-- Totals per customer over the staging view.
SELECT customer, COUNT(*) AS orders, SUM(amount) AS total
FROM ref('ch_orders_clean')
GROUP BY customer
