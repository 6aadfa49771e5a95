-- arrays through UNION (deduplicated by value)
SELECT tags FROM source('a.accounts') UNION SELECT tags FROM source('a.labels')
