-- fine: no unbounded-state warning (the state is the table's rows)
SELECT e.id, k.label FROM source('ev') AS e LEFT JOIN source('kinds') AS k ON e.kind = k.kind
