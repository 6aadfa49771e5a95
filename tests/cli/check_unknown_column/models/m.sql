SELECT custmer_id, amount FROM source('shop.orders')
