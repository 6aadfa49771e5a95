-- Accounts per tier from a debezium-json source.
SELECT tier, COUNT(*) AS accounts, SUM(balance) AS total
FROM source('up.accounts_cdc')
GROUP BY tier
