-- arrays as join keys
SELECT a.id, l.label, a.tags FROM source('a.accounts') a JOIN source('a.labels') l ON a.tags = l.tags
