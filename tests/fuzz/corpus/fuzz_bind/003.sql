SELECT customer_id,
       count(DISTINCT status) AS statuses,
       sum(amount) FILTER (WHERE status = 'paid') AS paid,
       sum(DISTINCT amount) AS distinct_amounts,
       avg(DISTINCT amount) AS avg_distinct,
       count(*) FILTER (WHERE amount > 100) AS big
FROM source('s.t')
GROUP BY customer_id
