SELECT a.window_start, a.window_end, a.customer_id, a.orders, p.n AS payments
FROM ref('orders_per_minute') a
JOIN (SELECT window_start, window_end, COUNT(*) AS n
      FROM HOP(source('shop.payments'), paid_at, INTERVAL '30' SECOND, INTERVAL '1' MINUTE)
      GROUP BY window_start, window_end) p
  ON a.window_start = p.window_start AND a.window_end = p.window_end
