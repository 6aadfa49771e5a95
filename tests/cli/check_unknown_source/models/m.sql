SELECT * FROM source('shop.order')
