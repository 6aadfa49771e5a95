SELECT a
FROM (SELECT order_id AS a, customer_id AS a FROM source('s.t')) s
