-- The latest row per id of a changelog source.
SELECT id, owner, tier, balance
FROM source('up.accounts')
