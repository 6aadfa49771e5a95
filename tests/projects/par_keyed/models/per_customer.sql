-- an aggregate by the routing key
SELECT customer_id, count(*) AS n, sum(amount) AS total, max(amount) AS biggest
FROM source('shop.orders')
GROUP BY customer_id
