SELECT i2 = i8 AS a, i4 < n AS b, n > f4 AS c, d < ts AS e, ts = tz AS f, f4 = f4 AS g, b = 'yes' AS h, iv > '1 day' AS i
FROM source('t.types')
