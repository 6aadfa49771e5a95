SELECT order_id, amount FROM ref('orders_clean') WHERE amount > 100
