SELECT * FROM source('nexmark.bid')
