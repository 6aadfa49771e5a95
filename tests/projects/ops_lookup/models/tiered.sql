-- a LEFT lookup against an updating table: an event without a tier gets NULL, and a
-- tier given, changed or deleted later changes no earlier row
SELECT e.id, e.usr, t.tier
FROM source('lk.ev') AS e
LEFT JOIN source('lk.tiers') AS t ON e.usr = t.usr
