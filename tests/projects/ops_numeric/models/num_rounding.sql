-- round() of double precision rounds half to even, of numeric half away from zero;
-- numeric %, numeric division scale, float/numeric comparison.
SELECT
    id,
    round(f)              AS f_round,
    round(x)              AS x_round,
    x % 2                 AS x_mod2,
    power(i, 2)           AS i_pow,
    sqrt(abs(f))          AS f_sqrt,
    abs(a)::text          AS a_abs_text,
    f = x                 AS f_eq_x,
    (x / 4)::text         AS x_div4_text,
    sign(x)               AS x_sign
FROM source('num.readings')
