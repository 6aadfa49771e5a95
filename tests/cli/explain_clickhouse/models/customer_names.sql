SELECT customer_id, name FROM source('shop.customers')
