SELECT customer_id, SUM(amount) AS total FROM source('shop.orders') WHERE amount > ${min_amt} GROUP BY customer_id
