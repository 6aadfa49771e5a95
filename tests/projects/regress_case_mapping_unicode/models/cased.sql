-- Found by tests/differential/difftest.py: lower/upper/ILIKE must follow Unicode simple
-- case mapping as PostgreSQL does with a UTF-8 locale (C.UTF-8, en_US.UTF-8), not only
-- Latin-1, Latin Extended-A, Greek and Cyrillic. Vietnamese (Latin Extended-B and
-- Latin Extended Additional), fullwidth Latin, Armenian and titlecase digraphs
-- were left unchanged.
SELECT id, upper(s) AS up, lower(s) AS low, s ILIKE 'ƯỚC%' AS starts_uoc
FROM source('t.words')
