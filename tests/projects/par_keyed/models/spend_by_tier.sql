-- an aggregate over the join, by customer and tier
SELECT customer_id, tier, sum(amount) AS spent
FROM ref('orders_named')
GROUP BY customer_id, tier
