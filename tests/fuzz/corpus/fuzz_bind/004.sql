SELECT max(b) FROM source('t.types')
