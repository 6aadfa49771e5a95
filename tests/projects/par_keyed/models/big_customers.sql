-- a chain: a model over per_customer, still keyed by customer_id
SELECT customer_id, n, total FROM ref('per_customer') WHERE n >= 10
