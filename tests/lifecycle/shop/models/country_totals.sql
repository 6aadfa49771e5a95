SELECT country, COUNT(*) AS orders, SUM(amount) AS total
FROM ref('orders_enriched')
GROUP BY country
