-- Nexmark q3: local item suggestion. Who sells in OR, ID or CA in category 10, and which
-- auctions? An incremental join. The generator capitalises states, as Flink's does.
SELECT P.name, P.city, P.state, A.id
FROM source('nexmark.auction') AS A
INNER JOIN source('nexmark.person') AS P ON A.seller = P.id
WHERE A.category = 10 AND (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA')
