SELECT o.order_id, p.paid FROM source('shop.orders') o JOIN source('shop.payments') p USING (order_id)
