SELECT order_id FROM source('shop.orders') WHERE status = 42
