SELECT tags[i], ARRAY[n, f]::int[], s = ANY(tags), i <> ALL('{1,2}'), array_length(tags, 1), '{"a": [1]}'::json, tags::text, ARRAY[ARRAY[1]], tags = ARRAY[1], doc = doc FROM source('s.t')
