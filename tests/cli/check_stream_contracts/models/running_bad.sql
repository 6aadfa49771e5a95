SELECT order_id, SUM(amount) OVER (PARTITION BY order_id ORDER BY created_at) AS running
FROM ref('enriched') e JOIN source('shop.orders') o USING (order_id)
