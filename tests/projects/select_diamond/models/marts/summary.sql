SELECT co.country, SUM(t.total) AS total
FROM ref('customer_orders') co JOIN ref('order_totals') t ON co.customer_id = t.customer_id
GROUP BY co.country
