-- Sums and averages: numeric stays exact, float sums round like double precision.
SELECT
    grp,
    SUM(x)          AS sum_x,
    SUM(x)::text    AS sum_x_text,
    SUM(f)          AS sum_f,
    SUM(a)::text    AS sum_a_text,
    AVG(a)::text    AS avg_a_text,
    SUM(i)          AS sum_i,
    AVG(i)::text    AS avg_i_text,
    SUM(b)::text    AS sum_b_text
FROM source('num.readings')
GROUP BY grp
