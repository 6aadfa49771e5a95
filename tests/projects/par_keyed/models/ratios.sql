-- a keyless insert-only model whose expression fails for some rows (dead letters of
-- the model, in input order); a regular expression with a capture, evaluated by every
-- replica at once
SELECT order_id, customer_id, 1000 / amount AS per_mille,
       regexp_replace(status, '([aeiou])', '<\1>', 'g') AS marked
FROM source('shop.orders')
