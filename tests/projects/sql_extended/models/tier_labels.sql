WITH labels(tier, label, rnk) AS (VALUES ('gold', 'Gold tier', 1), ('silver', 'Silver tier', 2), ('bronze', NULL, 3))
SELECT a.id, a.owner, l.label, l.rnk
FROM source('x.accounts') a JOIN labels l ON l.tier = a.tier
