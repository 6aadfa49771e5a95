-- insert-only input: only the extreme is kept per group
SELECT customer_id, MAX(amount) AS largest, MIN(amount) AS smallest FROM source('shop.orders') GROUP BY customer_id
