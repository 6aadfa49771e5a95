SELECT a.id, a.owner,
       (SELECT count(*) FROM source('x.orders') o WHERE o.account_id = a.id) AS orders,
       (SELECT coalesce(sum(o.qty), 0) FROM source('x.orders') o WHERE o.account_id = a.id AND o.qty > 1) AS big_qty
FROM source('x.accounts') a
WHERE EXISTS (SELECT 1 FROM source('x.orders') o WHERE o.account_id = a.id) OR a.balance > 100
