-- DISTINCT over two columns; the whole row is the output key.
SELECT DISTINCT user_id, page
FROM source('du.visits')
