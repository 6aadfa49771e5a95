SELECT order_id, customer_id, amount FROM source('shop.orders') WHERE amount > 0
