-- arrays as ORDER BY keys of a top-n (PostgreSQL's array order: element by element, NULL last, shorter first)
SELECT id, tags FROM source('a.accounts') ORDER BY tags DESC, id LIMIT 2
