SELECT id FROM source('shop.events')
