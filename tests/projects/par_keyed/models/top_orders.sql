-- a customer's two biggest orders (TopN with PARTITION BY the key)
SELECT customer_id, order_id, amount
FROM (SELECT customer_id, order_id, amount,
             ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY amount DESC, order_id) AS rn
      FROM source('shop.orders')) t
WHERE rn <= 2
