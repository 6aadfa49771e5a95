SELECT P.id, P.name, P.starttime
FROM (
    SELECT id, name, date_bin(INTERVAL '10 seconds', date_time, TIMESTAMP '1970-01-01') AS starttime
    FROM person
    GROUP BY id, name, date_bin(INTERVAL '10 seconds', date_time, TIMESTAMP '1970-01-01')
) P
JOIN (
    SELECT seller, date_bin(INTERVAL '10 seconds', date_time, TIMESTAMP '1970-01-01') AS starttime
    FROM auction
    GROUP BY seller, date_bin(INTERVAL '10 seconds', date_time, TIMESTAMP '1970-01-01')
) A
ON P.id = A.seller AND P.starttime = A.starttime
