SELECT o.order_id, p.paid FROM source('shop.orders') o JOIN source('shop.payments') p ON o.order_id = p.order_id
