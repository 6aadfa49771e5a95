-- Exact numeric arithmetic, integer division, rounding and casts. The ::text columns
-- pin the exact scale PostgreSQL prints.
SELECT
    id,
    a,
    a::text                     AS a_text,
    (x + 0.2)::text             AS x_plus_text,
    f + 0.2                     AS f_plus,
    (f + 0.2)::text             AS f_plus_text,
    i / j                       AS int_div,
    i % j                       AS int_mod,
    (i::numeric / j)::text      AS num_div_text,
    (a * 3)::text               AS a_times_3_text,
    (a * a)::text               AS a_squared_text,
    round(a, 1)::text           AS a_round1_text,
    trunc(a, 1)::text           AS a_trunc1_text,
    floor(a)                    AS a_floor,
    ceil(a)                     AS a_ceil,
    f::integer                  AS f_int,
    a::integer                  AS a_int,
    b / 2                       AS b_half
FROM source('num.readings')
