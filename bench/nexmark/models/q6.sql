-- Nexmark q6: average selling price by seller, over each seller's last 10 closed
-- auctions. Flink's text (AVG OVER ROWS BETWEEN 10 PRECEDING over a retracting TopN)
-- does not run on Flink either (FLINK-19059); this is the group-top-N form of the
-- original CQL query: the winning price of each auction (as in q4), the 10 most recently
-- closed auctions per seller (TopN by expires; ties broken by id), then AVG per seller.
SELECT seller, AVG(final) AS avg_price
FROM (
    SELECT seller, final,
           ROW_NUMBER() OVER (PARTITION BY seller ORDER BY expires DESC, id DESC) AS rn
    FROM (
        SELECT A.id, A.seller, A.expires, MAX(B.price) AS final
        FROM source('nexmark.auction') A, source('nexmark.bid') B
        WHERE A.id = B.auction AND B.date_time BETWEEN A.date_time AND A.expires
        GROUP BY A.id, A.seller, A.expires
    ) AS W
) AS Q
WHERE rn <= 10
GROUP BY seller
