-- Nexmark q6 as Flink writes it (nexmark/nexmark queries/q6.sql), in weir's dialect.
-- NOT RUN: `weir check` says
--   error: this window frame is not supported yet
--   hint: use the default frame or ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW
-- (the sliding frame ROWS BETWEEN 10 PRECEDING AND CURRENT ROW; weir's running aggregates
-- also take insert-only input only, and the TopN below retracts). Flink cannot run it
-- either (FLINK-19059); RisingWave's q6-group-top1 has the same frame. models/q6.sql is the
-- group-top-N form of the same question that weir runs.
SELECT
    Q.seller,
    AVG(Q.price) OVER
        (PARTITION BY Q.seller ORDER BY Q.date_time ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) AS avg_price
FROM (
    SELECT *, ROW_NUMBER() OVER (PARTITION BY id, seller ORDER BY price DESC) AS rownum
    FROM (SELECT A.id, A.seller, B.price, B.date_time
          FROM source('nexmark.auction') AS A, source('nexmark.bid') AS B
          WHERE A.id = B.auction AND B.date_time BETWEEN A.date_time AND A.expires) AS J
) AS Q
WHERE rownum <= 1
