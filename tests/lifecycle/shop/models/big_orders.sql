WITH o AS (SELECT order_id, amount FROM ref('orders_clean'))
SELECT order_id, amount FROM o WHERE amount > 100
