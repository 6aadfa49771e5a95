SELECT customer_id, sum(amount) AS total, sum(amount) / count(*) AS mean, count(*) AS n
FROM source('s.t')
GROUP BY customer_id
