SELECT *
FROM source('s')
WHERE a >= ${a} AND r = '${region}' AND x = $${y} ${ENV:Z} ${missing} ${open
