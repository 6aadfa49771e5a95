SELECT customer_id, bool_and(amount > 0) AS all_positive, bool_or(status = 'paid') AS any_paid,
       every(status <> 'cancelled') AS never_cancelled
FROM source('s.t')
GROUP BY customer_id
