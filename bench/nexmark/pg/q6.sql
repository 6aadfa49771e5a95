SELECT seller, AVG(final) AS avg_price
FROM (
    SELECT seller, final,
           ROW_NUMBER() OVER (PARTITION BY seller ORDER BY expires DESC, id DESC) AS rn
    FROM (
        SELECT A.id, A.seller, A.expires, MAX(B.price) AS final
        FROM auction A, bid B
        WHERE A.id = B.auction AND B.date_time BETWEEN A.date_time AND A.expires
        GROUP BY A.id, A.seller, A.expires
    ) AS W
) AS Q
WHERE rn <= 10
GROUP BY seller
