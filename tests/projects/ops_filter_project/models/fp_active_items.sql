-- Filter and project over an updating source; the primary key id is kept, so the
-- output is keyed by id.
SELECT id, upper(name) AS name, qty * price AS stock_value, status
FROM source('fp.items')
WHERE status = 'active' AND qty > 0
