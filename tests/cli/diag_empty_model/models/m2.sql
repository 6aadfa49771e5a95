SELECT customer_id FROM ref('m')
