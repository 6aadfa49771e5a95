-- Nexmark q4: average price for a category. The average of the winning bid prices of all
-- auctions in each category (a bid wins when it is the highest one made while its auction
-- was open). A join and two levels of aggregation.
SELECT Q.category, AVG(Q.final) AS avg_final
FROM (
    SELECT MAX(B.price) AS final, A.category
    FROM source('nexmark.auction') A, source('nexmark.bid') B
    WHERE A.id = B.auction AND B.date_time BETWEEN A.date_time AND A.expires
    GROUP BY A.id, A.category
) Q
GROUP BY Q.category
