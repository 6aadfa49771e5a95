SELECT i2 + i2 AS a, i2 + i4 AS b, i4 + i8 AS c, i4 + n AS d, n * f8 AS e, f4 + i4 AS f, f4 * f4 AS g,
       i4 / i4 AS h, i4 % 3 AS i, n2 - n2 AS j, -i2 AS k, -n2 AS l, i8 * 2 AS m2, n2 / 3 AS o, f8 + 1.5 AS p
FROM source('t.types')
