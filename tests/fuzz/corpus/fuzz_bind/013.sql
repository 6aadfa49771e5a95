SELECT order_id FROM source('s.t') WHERE status = 'a' AND amount
