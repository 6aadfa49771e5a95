SELECT order_id FROM source('shop.orders') WHERE amount > 'x'
