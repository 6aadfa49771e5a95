-- a keyless insert-only model whose expression fails for some rows (dead letters of
-- the model, in input order)
SELECT order_id, customer_id, 1000 / amount AS per_mille FROM source('shop.orders')
