SELECT created_at::int FROM source('s.t')
