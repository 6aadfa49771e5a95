-- Scalar expressions over an insert-only source, behind a WHERE filter.
SELECT
    id,
    upper(trim(name))                         AS name_norm,
    length(name)                              AS name_len,
    substring(name from 2 for 3)              AS name_mid,
    left(trim(name), 2)                       AS name_left,
    concat(name, '#', id)                     AS tag,
    name || '/' || category                   AS path,
    replace(coalesce(note, 'n/a'), ' ', '_')  AS note_clean,
    CASE WHEN qty >= 10 THEN 'bulk'
         WHEN qty >= 2  THEN 'multi'
         ELSE 'single' END                    AS size_class,
    qty * price                               AS line_total,
    price::integer                            AS price_int,
    qty::text || 'x'                          AS qty_label,
    coalesce(category, 'uncategorized')       AS category,
    round(price / 3, 2)                       AS third_price,
    abs(qty - 5)                              AS dist5,
    greatest(qty, 3)                          AS qty_at_least_3
FROM source('fp.events')
WHERE qty >= ${min_qty} AND coalesce(category, '') <> 'test'
