SELECT c.user_id, p.name, c.page, c.ts
FROM source('ttl.clicks') c
JOIN source('ttl.profiles') p ON c.user_id = p.user_id
