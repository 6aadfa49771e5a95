SELECT order_id FROM ref('m2')
