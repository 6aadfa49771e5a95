-- DISTINCT over an updating source: a page stays while any visit holds it.
SELECT DISTINCT page
FROM source('du.visits')
