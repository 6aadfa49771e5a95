-- a wider key that holds the routing key, over the chain's upstream source
SELECT customer_id, status, count(*) AS n, count(DISTINCT amount) AS amounts
FROM source('shop.orders')
GROUP BY customer_id, status
