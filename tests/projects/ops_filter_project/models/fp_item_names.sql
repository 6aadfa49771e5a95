-- A projection of an updating source that drops the key: keyless output.
SELECT lower(name) AS name, status
FROM source('fp.items')
