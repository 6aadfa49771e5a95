SELECT id, tags[1] AS first_tag, cardinality(tags) AS ntags, 'vip' = ANY(tags) AS vip, tags::text AS tags_text
FROM source('a.accounts')
