SELECT order_id, amount AS total FROM source('shop.orders')
