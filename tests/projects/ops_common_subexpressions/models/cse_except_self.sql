-- A relation minus itself is always empty, whatever the updates.
SELECT customer FROM source('cse.orders')
EXCEPT
SELECT customer FROM source('cse.orders')
