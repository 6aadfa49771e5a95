SELECT e.id, k.label FROM source('ev') AS e FULL JOIN source('kinds') AS k ON e.kind = k.kind
