SELECT o.order_id, p.payment_id, p.paid
FROM source('shop.orders') o
JOIN source('shop.payments') p
  ON p.order_id = o.order_id
 AND p.paid_at BETWEEN o.created_at AND o.created_at + INTERVAL '1' HOUR
