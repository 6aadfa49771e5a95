SELECT sum(i2) AS s2, sum(i4) AS s4, sum(i8) AS s8, sum(n2) AS sn, sum(f4) AS sf4, sum(f8) AS sf8, sum(iv) AS siv,
       avg(i2) AS a2, avg(i8) AS a8, avg(n) AS an, avg(f4) AS af4, avg(iv) AS aiv,
       min(n2) AS mn, max(v) AS mv, min(d) AS md, max(tz) AS mtz, count(b) AS cb
FROM source('t.types')
