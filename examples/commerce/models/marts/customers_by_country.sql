-- Customers per country from an updating (changelog) source.
SELECT country, COUNT(*) AS customers
FROM source('commerce.customers')
GROUP BY country
