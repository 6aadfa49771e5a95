-- Orders paid within two minutes (an interval join).
SELECT o.id, o.k, o.ts, p.ts AS paid_at
FROM source('et.orders') o
JOIN source('et.payments') p ON p.order_id = o.id AND p.ts BETWEEN o.ts AND o.ts + INTERVAL '2' MINUTE
