-- Two identical branches: UNION ALL keeps both copies of every row.
SELECT customer, amount FROM source('cse.orders') WHERE amount > 5
UNION ALL
SELECT customer, amount FROM source('cse.orders') WHERE amount > 5
