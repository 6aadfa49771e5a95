SELECT * FROM source('shop.orders') o LEFT JOIN LATERAL (SELECT 1) x ON true
