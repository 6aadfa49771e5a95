-- an aggregate over a join of two streams: native as well (its own run and state)
SELECT p.method, count(*) AS orders
FROM source('j.orders') AS o
JOIN source('j.payments') AS p ON o.order_id = p.order_id
GROUP BY p.method
