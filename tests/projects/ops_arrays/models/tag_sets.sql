-- arrays as group keys: accounts per set of tags
SELECT tags, count(*) AS n, array_agg(id ORDER BY id) AS ids
FROM source('a.accounts')
GROUP BY tags
