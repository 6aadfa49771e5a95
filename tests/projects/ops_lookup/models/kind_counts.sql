-- how many labels each kind has (an upsert by kind: it updates as labels arrive)
SELECT kind, count(*) AS labels FROM source('lk.kinds') GROUP BY kind
