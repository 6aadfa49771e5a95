-- Both branches read the same source, so one input row yields two output rows in one
-- step; they are ordered by the whole row, not by branch.
SELECT page, 2 AS branch FROM source('du.clicks')
UNION ALL
SELECT page, 1 AS branch FROM source('du.clicks') WHERE page LIKE '/a%'
