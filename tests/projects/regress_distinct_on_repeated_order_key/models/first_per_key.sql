-- Found by tests/differential/difftest.py (seeds 1673, 1764, 2964; topn family).
-- PostgreSQL accepts a DISTINCT ON expression that appears again later in ORDER BY
-- (the rule is only that the DISTINCT ON expressions match the leading ORDER BY
-- items); weir check rejected it with "SELECT DISTINCT ON expressions must match
-- initial ORDER BY expressions". `ORDER BY k1, k1 DESC, id` was accepted, so the
-- repeated key after another item is what trips the check.
SELECT DISTINCT ON (k1) k1, id, v
FROM source('t.a')
ORDER BY k1, v DESC, k1 DESC, id
