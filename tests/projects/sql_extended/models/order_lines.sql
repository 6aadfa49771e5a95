SELECT o.order_id, a.owner, i.name, o.qty * i.price AS total
FROM source('x.items') i, source('x.accounts') a, source('x.orders') o
WHERE i.item_id = o.item_id AND o.account_id = a.id
