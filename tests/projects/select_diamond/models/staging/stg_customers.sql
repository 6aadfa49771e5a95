SELECT customer_id, country FROM source('shop.customers')
