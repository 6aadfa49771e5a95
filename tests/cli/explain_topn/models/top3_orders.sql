SELECT customer_id, order_id, amount, rn
FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY amount DESC) AS rn
      FROM source('shop.orders')) ranked
WHERE rn <= 3
