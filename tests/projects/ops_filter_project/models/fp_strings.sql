-- String functions at their edges: negative lengths and positions, multibyte
-- characters, concat() of non-text values, casts to text.
SELECT
    id,
    length(name)                        AS len,
    right(name, -2)                     AS right_neg,
    left(name, -1)                      AS left_neg,
    substring(name from -1 for 3)       AS sub_neg,
    substr(name, 2)                     AS sub_tail,
    split_part(note, ',', -1)           AS last_part,
    split_part(note, ',', 5)            AS missing_part,
    strpos(name, 'l')                   AS pos_l,
    position('lo' in name)              AS pos_lo,
    ltrim(category, 'x')                AS ltrimmed,
    rtrim(category, 'x')                AS rtrimmed,
    trim(both 'x' from category)        AS trimmed,
    concat('x', qty > 1, price, NULL, ts) AS concat_any,
    (qty > 1)::text                     AS bool_text,
    concat_ws(',', name, NULL, category) AS joined,
    replace(name, 'l', 'LL')            AS replaced,
    ts::text                            AS ts_text,
    price::text                         AS price_text
FROM source('fp.events')
