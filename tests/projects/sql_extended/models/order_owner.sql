-- a correlated scalar subquery that is not an aggregate: NULL without a match, the value
-- with one, a runtime error (the order's dead letter) with several
SELECT o.order_id,
       (SELECT a.owner FROM source('x.accounts') a WHERE a.balance = o.qty) AS owner
FROM source('x.orders') o
