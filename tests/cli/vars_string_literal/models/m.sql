SELECT order_id, status FROM source('shop.orders') WHERE status = ${status}
