SELECT '12x'::int FROM source('s.t')
