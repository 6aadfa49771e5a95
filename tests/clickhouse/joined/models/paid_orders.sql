-- a join of two streams: ClickHouse cannot maintain it (a view fires only on its own
-- table's inserts); with native_fallback weir's runtime computes it into ClickHouse
SELECT o.order_id, o.amount, o.note, p.method, p._replay_partition AS payment_partition
FROM source('j.orders') AS o
JOIN source('j.payments') AS p ON o.order_id = p.order_id
