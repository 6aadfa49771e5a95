-- a model that never names them scans the source without them
SELECT * FROM source('lin.events')
