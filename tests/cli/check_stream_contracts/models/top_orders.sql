SELECT * FROM (
  SELECT order_id, customer_id, amount,
         RANK() OVER (PARTITION BY customer_id ORDER BY amount DESC) AS r
  FROM source('shop.orders')) x
WHERE r <= 2
