SELECT amount * 2 AS doubled
FROM source('s.t')
WHERE doubled > 10
