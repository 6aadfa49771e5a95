SELECT status, COUNT(*) AS n FROM source('shop.orders') GROUP BY status
