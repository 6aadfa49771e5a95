-- UNION ALL of an insert-only and an updating branch: a keyless output.
SELECT user_id, page, 'click' AS kind FROM source('du.clicks')
UNION ALL
SELECT user_id, page, 'visit' AS kind FROM source('du.visits')
