SELECT page, COUNT(*) AS clicks FROM source('web.clicks') GROUP BY page
