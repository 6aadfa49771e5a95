#!/usr/bin/env python3
"""The scalar functions against PostgreSQL: a small weir project whose models apply the
string, math, date/time, formatting and regular expression functions to a file source
of varied rows (UTF-8 text, numerics, extreme integers, floats, timestamps across
years, intervals, NULLs) runs with `weir run` into JSON file sinks; PostgreSQL runs
the same SELECTs over the same rows loaded into a table. Every value is compared as
text (each expression is cast to text on both sides, so this is PostgreSQL's output
format). A last model makes rows fail (runtime errors): weir's dead letters must give
PostgreSQL's message for exactly the rows PostgreSQL rejects.

Used by tests/scripts/functions_vs_pg.sh (PostgreSQL reached through PG* variables).
Prints "ok" or every difference; exit status 1 on a difference. Standard library only.
"""
import argparse
import json
import os
import subprocess
import sys

COLUMNS = [('id', 'bigint'), ('s', 'text'), ('s2', 'text'), ('n', 'numeric(20,6)'), ('i', 'integer'),
           ('b', 'bigint'), ('f', 'double precision'), ('ts', 'timestamp'), ('tz', 'timestamptz'),
           ('d', 'date'), ('iv', 'interval')]

TEXTS = ['hello world', 'Hello World', '', None, 'héllo wörld', 'ÉCOLE école', '日本語テキスト', 'foo123bar456',
         'a,b,,c', 'The Quick Brown Fox', 'mississippi', 'straße', 'ǆemal ǅ', 'tab\there', 'line1\nline2',
         '  spaces  ', 'x=1; y=22; z=333', "quote's \"double\"", 'CamelCaseString', '€100 ɐɑɫ', 'aaa',
         'back\\slash', 'ΑΒΓ δεζ', 'ab12cd34', '2024-03-15']
TEXTS2 = ['he', 'l', '', None, 'hé', 'É', '日本', 'foo', 'a', 'The', 'mis', 'x', 'ǆ', 'tab', 'line', ' ', 'x=',
          'q', 'C', '€', 'aa', 'b', 'Α', 'ab', '20']
NUMS = ['0', '1', '-1', '0.5', '1234.5678', '-987654.321', '0.000001', '99999999999999.999999', None, '2.5',
        '-2.5', '12345678901234.123456', '3.141593', '-0.000001', '7', '100', '0.999999', '-12.345678',
        '555.555', '1e3', '42', '-7.7', '0.1', '999', '-1000']
INTS = [0, 1, -1, 5, 42, -42, 2147483647, -2147483648, None, 65, 233, 8364, 3999, 4000, 12, 99, -100, 7, 1000,
        123456, -999999, 2, 31, 1994, 365]
BIGS = [0, 123456789012, -5, None, 9223372036854775807, -9223372036854775808, 1, 42, 1000000, -123, 7, 36, 999,
        10, 2, 86400, -86400, 5, 3, 11, 12, 13, 14, 15, 16]
FLOATS = [0.0, 1.5, -1.5, 0.1, 2.5, 1e-05, 123456.789, 1000000000000000.0, None, 3.14159, -0.0, 0.5, -2.5,
          99.95, 7.0, -7.25, 1e-300, 1e+300, 0.333, 42.0, -100.0, 12.5, 0.001, 6.02e+23, -6.02e+23]
TSS = ['2024-03-15 12:34:56.789', '2024-01-01 00:00:00', '2023-12-31 23:59:59.999999', '2020-02-29 13:00:00',
       '1999-12-31 00:00:01', '2021-01-03 07:08:09', '1970-01-01 00:00:00', '1969-12-31 23:59:59.5', None,
       '2000-01-01 12:00:00', '1900-02-28 12:00:00', '2024-12-30 11:11:11', '2026-01-01 00:00:00',
       '1985-07-04 06:30:00.25', '2038-01-19 03:14:07', '2010-10-10 10:10:10.101', '2024-02-29 00:00:00',
       '2001-09-09 01:46:40', '1960-06-15 18:00:00', '2099-12-31 23:59:59', '2012-02-29 23:00:00',
       '2030-05-05 05:05:05.5', '2015-07-15 23:58:30', '2005-01-01 00:00:01', '1995-05-23 14:00:00']
TZS = ['2024-03-15T12:34:56.789+02:00', '2024-01-01 00:00:00Z', '2023-12-31 23:59:59.999999+00',
       '2020-02-29 13:00:00-05:30', '1999-12-31 00:00:01+01', '2021-01-03 07:08:09Z', '1970-01-01 00:00:00Z',
       '1969-12-31 23:59:59.5Z', None, '2000-01-01 12:00:00Z', '1900-02-28 12:00:00Z', '2024-12-30 11:11:11Z',
       '2026-01-01 00:00:00Z', '1985-07-04 06:30:00.25Z', '2038-01-19 03:14:07Z', '2010-10-10 10:10:10Z',
       '2024-02-29 00:00:00Z', '2001-09-09 01:46:40Z', '1960-06-15 18:00:00Z', '2099-12-31 23:59:59Z',
       '2012-02-29 23:00:00Z', '2030-05-05 05:05:05Z', '2015-07-15 23:58:30Z', '2005-01-01 00:00:01Z',
       '1995-05-23 14:00:00Z']
DATES = ['2024-03-15', '2024-01-01', '2023-12-31', '2020-02-29', '1999-12-31', '2021-01-03', '1970-01-01',
         '1969-12-31', None, '2000-01-01', '1900-02-28', '2024-12-30', '2026-01-01', '1985-07-04', '2038-01-19',
         '2010-10-10', '2024-02-29', '2001-09-09', '1960-06-15', '2099-12-31', '2012-02-29', '2030-05-05',
         '2015-07-15', '2005-01-01', '1995-05-23']
IVS = ['1 day 02:00:00', '35 days', '-1 mons 01:00:00', '1 year 2 mons 3 days 04:05:06.789', '27:00:00', None,
       '00:00:00', '-35 days -27:00:00', '1 mon -1 days', '100:03:00', '29 days 23:00:00', '-00:00:00.5',
       '5 years', '11 mons', '-11 mons', '13 mons 40 days 25:59:00', '2 days', '00:00:01', '-1 days +02:00:00',
       '1 day', '30 days', '720:00:00', '1 mon', '-1 year', '3 days 12:00:00']

ROWS = [dict(zip([c for c, _ in COLUMNS], vals)) for vals in
        zip(range(1, len(TEXTS) + 1), TEXTS, TEXTS2, NUMS, INTS, BIGS, FLOATS, TSS, TZS, DATES, IVS)]

# One model per family; every expression is cast to text on both sides.
MODELS = {
    'strings': [
        "lpad(s, 12, '*')", "rpad(s, 8)", "lpad(s, (id % 7)::int - 1, 'xy')", "rpad(s, 15, 'é')", "initcap(s)",
        "reverse(s)", "repeat(s, (id % 4)::int)", "md5(s)", "starts_with(s, s2)", "translate(s, 'lo é', 'LØ_')",
        "ascii(s)", "chr(65 + (id % 50)::int)", "chr(8364 + (id % 3)::int)", "octet_length(s)", "upper(s)",
        "lower(s)", "length(s)", "lpad(s2, 4)",
    ],
    'math': [
        "exp(least(greatest(n, -30), 30))", "ln(abs(n) + 1)", "log(abs(n) + 1)", "log(2, abs(n) + 1)",
        "log10(abs(n) + 0.5)", "power(abs(n) + 1, 0.5)", "power(abs(n) + 2, -1.5)", "exp(greatest(least(f, 100), -100))",
        "ln(abs(f) + 1)", "log(abs(f) + 1)", "cbrt(f)", "degrees(f)", "radians(f)", "sin(f)", "cos(f)", "tan(f)",
        "atan(f)", "atan2(f, 2)", "asin(f / (abs(f) + 1))", "acos(f / (abs(f) + 1))", "pi() * i",
        "width_bucket(f, -10, 10, 5)", "width_bucket(n, -1000, 1000, 8)", "width_bucket(i, 1000, 0, 4)",
        "div(n, 7)", "div(b, 7)", "gcd(i, 12)", "lcm(i % 1000, 6)", "gcd(b, 36)", "gcd(n, 0.5)", "lcm(n, 0.25)",
        "exp(i % 20)", "ln(abs(b::numeric) + 1)", "sqrt(abs(n))",
    ],
    'datetime': [
        "date_bin('15 minutes', ts, timestamp '2001-01-01')", "date_bin('1 day 6 hours', ts, '2000-01-01 03:00')",
        "date_bin('1 hour', tz, timestamptz '2000-01-01 00:30:00+00')",
        "make_date(extract(year from d)::int, 2, 28)",
        "make_timestamp(2024, 1 + (id % 12)::int, 1 + (id % 28)::int, (id % 24)::int, (id % 60)::int, (id % 60) + 0.25)",
        "make_interval(0, (id % 12)::int, 0, (id % 30)::int, 1, 2, 3.5)", "make_interval((id % 3)::int)",
        "to_timestamp(i)", "to_timestamp(extract(epoch from ts)::float8 + 0.5)",
        "age(ts, timestamp '2000-02-29 12:00:00')", "age(timestamp '2024-03-01', ts)",
        "age(tz, tz - interval '1 mon 3 days 01:00')", "age(d, date '2000-01-31')", "justify_days(iv)",
        "justify_hours(iv)", "justify_interval(iv)", "isfinite(ts)", "isfinite(d)", "isfinite(iv)",
        "ts AT TIME ZONE 'UTC'", "tz AT TIME ZONE 'utc'", "d AT TIME ZONE 'GMT'", "ts AT TIME ZONE INTERVAL '+02:00'",
        "tz AT TIME ZONE INTERVAL '-05:30'", "(ts AT TIME ZONE 'UTC') AT TIME ZONE 'Z'",
    ],
    # named zones (the system's tzdata, read by weir's own TZif reader), abbreviations,
    # POSIX zones and a zone computed per row; the rows' timestamps span 1900..2099
    'zones': [
        "ts AT TIME ZONE 'Europe/Berlin'", "tz AT TIME ZONE 'Europe/Berlin'", "ts AT TIME ZONE 'America/New_York'",
        "tz AT TIME ZONE 'america/new_york'", "ts AT TIME ZONE 'Australia/Lord_Howe'",
        "tz AT TIME ZONE 'Australia/Lord_Howe'", "ts AT TIME ZONE 'Asia/Kolkata'", "tz AT TIME ZONE 'Asia/Kolkata'",
        "d AT TIME ZONE 'Europe/Dublin'", "ts AT TIME ZONE 'CET'", "tz AT TIME ZONE 'pst'", "ts AT TIME ZONE 'UTC+3'",
        "tz AT TIME ZONE '<+0545>-5:45'", "ts AT TIME ZONE 'EST5EDT'", "tz AT TIME ZONE 'America/Sao_Paulo'",
        "ts AT TIME ZONE 'Pacific/Apia'", "(ts AT TIME ZONE 'Europe/Berlin') AT TIME ZONE 'America/New_York'",
        "(ts + make_interval(0, 0, 0, (id * 37 % 365)::int, (id % 24)::int)) AT TIME ZONE 'America/New_York'",
        "(tz + make_interval(0, 0, 0, (id * 37 % 365)::int, (id % 24)::int)) AT TIME ZONE 'Europe/Berlin'",
        "ts AT TIME ZONE (CASE id % 5 WHEN 0 THEN 'Europe/Berlin' WHEN 1 THEN 'America/New_York' "
        "WHEN 2 THEN 'Asia/Kolkata' WHEN 3 THEN 'EST' ELSE 'Australia/Lord_Howe' END)",
        "tz AT TIME ZONE (CASE WHEN id % 2 = 0 THEN 'Africa/Casablanca' ELSE 'Europe/Moscow' END)",
        "timezone('Asia/Tokyo', ts)",
    ],
    'formatting': [
        "to_char(ts, 'YYYY-MM-DD HH24:MI:SS.US')", "to_char(ts, 'Day, DD Month YYYY HH12:MI AM')",
        "to_char(ts, 'FMDay FMDDth FMMonth IYYY-IW-ID Q WW J DDD')", "to_char(tz, 'YYYY-MM-DD\"T\"HH24:MI:SS.MSOF TZ')",
        "to_char(d, 'DD/MM/YY Dy mon')", "to_char(iv, 'DD HH24:MI:SS')", "to_char(iv, 'YYYY MM DD HH12 MI SS MS')",
        "to_char(ts, 'Y,YYY YYY YY Y CC RM rm W SSSS FF3 a.m. p.m.')", "to_char(n, 'FM999,999,999,990.000')",
        "to_char(n, 'S9999999999999999.99')", "to_char(n, '9.99EEEE')", "to_char(n, '9999')",
        "to_char(n, 'FM0000.0099')", "to_char(n, '999.99PR')", "to_char(i, '999G999G999PR')",
        "to_char(i, 'FMRN')", "to_char(i, '00000TH')", "to_char(i, 'SG99999999999')", "to_char(b, '9999999999999999999')",
        "to_char(b, 'FM999999999999999999999MI')", "to_char(f, '99999.999')", "to_char(f, 'FM0.00000MI')",
        "to_char(f, '9.999EEEE')", "to_char(f, 'PL9999999999999999999999.99')",
        "to_timestamp(to_char(ts, 'YYYY-MM-DD HH24:MI:SS.US'), 'YYYY-MM-DD HH24:MI:SS.US')",
        "to_timestamp(to_char(ts, 'DD Mon YYYY HH12:MI:SS AM'), 'DD Mon YYYY HH12:MI:SS AM')",
        "to_date(to_char(d, 'DD Month YYYY'), 'DD Month YYYY')", "to_date(to_char(d, 'IYYY-IW-ID'), 'IYYY-IW-ID')",
        "to_timestamp(to_char(tz, 'YYYYMMDD HH24MISS'), 'YYYYMMDD HH24MISS')",
    ],
    'regex': [
        "s ~ 'o'", "s ~* '^h'", "s !~ '\\d'", "s !~* 'É'", "regexp_replace(s, '(\\w+)', '<\\1>', 'g')",
        "regexp_replace(s, '[aeiouéö]', '_', 'gi')", "regexp_replace(s, 'l+', '', 1, 2)",
        "regexp_replace(s, '^(.)(.*)$', '\\2\\1')", "regexp_like(s, 'l{2}')", "regexp_like(s, 'WORLD', 'i')",
        "regexp_count(s, '\\w+')", "regexp_count(s, '[[:upper:]]', 2, 'i')", "regexp_substr(s, '\\d+', 1, 2)",
        "regexp_substr(s, '(\\w)(\\w)', 1, 1, '', 2)", "s ~ ('^' || s2)", "regexp_replace(s, '\\y', '|', 'g')",
        "regexp_replace(s, '\\s+', ' ', 'g')", "regexp_count(s, '')", "regexp_substr(s, '[^ ]+$')",
        "regexp_replace(s, '(?i)L', '£', 'g')", "regexp_replace(s, '.', '.', 'n')",
    ],
    # arrays: the constructor, text output (element quoting), input, casts, subscripts,
    # comparisons and = ANY
    'arrays': [
        "ARRAY[s, s2]", "ARRAY[s, NULL, '']", "ARRAY[i, b]", "ARRAY[n, 1.5, NULL]", "ARRAY[f, 0.5]", "ARRAY[ts]",
        "ARRAY[tz, NULL]", "ARRAY[d]", "ARRAY[iv]", "ARRAY[i > 0, b IS NULL]", "ARRAY[s, s2]::varchar(3)[]",
        "ARRAY[i, b]::numeric(30,2)[]", "ARRAY[n]::bigint[]", "ARRAY[s2, s] < ARRAY[s, s2]", "ARRAY[i, b] = ARRAY[b, i]",
        "ARRAY[n, NULL] <= ARRAY[n, 0]", "cardinality(ARRAY[s, s2, NULL])", "array_length(ARRAY[i, b], 1)",
        "array_length(ARRAY[i], 2)", "(ARRAY[s, s2, 'x'])[(id % 5)::int]", "(ARRAY[ts, NULL])[1]",
        "s = ANY (ARRAY[s2, 'hello world', NULL])", "i <> ALL (ARRAY[0, 1, NULL])", "i = ANY (ARRAY[b, 5])", "i < ANY (ARRAY[b, 5])", "s >= ALL (ARRAY[s2, 'a'])", "n > ALL ('{}'::numeric[])",
        "NULL::int <= ANY ('{}'::int[])", "ts <> ANY (ARRAY[ts, NULL])", "d > ALL (ARRAY[d - 1, NULL])",
        "('{' || coalesce(i::text, 'NULL') || ', ' || coalesce(b::text, 'null') || '}')::bigint[]",
        "ARRAY[s, s2]::text", "(ARRAY[s, s2]::text)::text[]", "('{\"' || replace(coalesce(s, ''), '\"', '') || '\"}')::text[]",
        "GREATEST(ARRAY[i], ARRAY[b])", "ARRAY[i] || ARRAY[b]", "ARRAY[s] || s2", "s || ARRAY[s2]", "ARRAY[n] || '{1.5,NULL}'",
        "ARRAY[i] || b", "array_cat(ARRAY[s], NULL)", "array_cat(NULL::int[], NULL)", "array_append(NULL::text[], s)",
        "array_prepend(i, ARRAY[b])", "array_to_string(ARRAY[s, NULL, s2], ',')", "array_to_string(ARRAY[s, NULL, s2], '', '*')",
        "array_to_string(ARRAY[n, f], ' | ')", "array_to_string(ARRAY[i > 0, NULL], ',', NULL)",
        "array_to_string(ARRAY[ts, tz], ';')", "string_to_array(s, ' ')", "string_to_array(s, 'l', 'o')",
        "string_to_array(s, NULL)", "string_to_array(s, '')", "string_to_array(s2, 'x', '')", "string_to_array(s, s2)", "ARRAY[s, s2] @> ARRAY[s2]", "ARRAY[s] <@ ARRAY[s, s2, NULL]", "ARRAY[i, NULL] @> ARRAY[NULL::int]",
        "ARRAY[i, b] && ARRAY[b]", "ARRAY[s] && '{}'", "'{}' <@ ARRAY[n]", "array_position(ARRAY[s2, s, NULL], s)",
        "array_position(ARRAY[s, NULL], NULL)", "array_position(ARRAY[i, b], 7)", "array_remove(ARRAY[s, s2, s], s)",
        "array_remove(ARRAY[i, NULL, b], NULL)", "CASE WHEN id % 2 = 0 THEN ARRAY[s] ELSE ARRAY[s2, s] END",
    ],
    # json: PostgreSQL's json_build_object / json_build_array / to_json text
    'json': [
        "json_build_object('s', s, 'n', n, 'ts', ts, 'b', i > 0, 'arr', ARRAY[i, NULL])",
        "json_build_array(s, n, f, tz, d, iv, NULL, b)", "to_json(s)", "to_json(ARRAY[s, NULL])", "array_to_json(ARRAY[n])",
        "json_build_object(coalesce(s2, '-'), id, coalesce(ts, '2000-01-01'), f, coalesce(i, 0), d)", "json_build_object()",
        "json_build_array()", "json_build_object('j', json_build_array(1, s), 'k', to_json(iv))", "to_json(f)",
        "to_json(tz)", "to_json(i > 0)",
    ],
    # the collecting aggregates over groups of rows (grouped by id % 4)
    'collect_aggs': [
        "array_agg(s ORDER BY id)", "array_agg(i ORDER BY i DESC, id)", "array_agg(n ORDER BY n NULLS FIRST, id)",
        "array_agg(DISTINCT s2 ORDER BY s2)", "array_agg(DISTINCT b ORDER BY b DESC)",
        "array_agg(ts ORDER BY ts DESC NULLS LAST, id) FILTER (WHERE i > 0)", "array_agg(iv ORDER BY id)",
        "array_agg(f ORDER BY f, id)", "json_agg(s ORDER BY id)", "json_agg(n ORDER BY id DESC)",
        "json_agg(f ORDER BY id)", "json_agg(ts ORDER BY id)", "json_agg(tz ORDER BY id)", "json_agg(d ORDER BY id)",
        "json_agg(iv ORDER BY id)", "json_agg(i > 0 ORDER BY id)", "json_agg(ARRAY[i, b] ORDER BY id)",
        "json_agg(DISTINCT s2 ORDER BY s2)", "json_agg(b ORDER BY id) FILTER (WHERE b > 0)",
        "json_object_agg(id, s ORDER BY id)", "json_object_agg(coalesce(ts, '2000-01-01'), i ORDER BY id)",
        "json_object_agg(coalesce(tz, '2000-01-01 00:00:00+00'), d ORDER BY id)",
        "json_object_agg(coalesce(i > 0, false), f ORDER BY id)", "json_object_agg(coalesce(iv, '1 day'), n ORDER BY id)",
        "json_object_agg(coalesce(f, 0), b ORDER BY id)", "json_object_agg(coalesce(d, '2000-01-01'), ts ORDER BY id)",
        "json_object_agg(coalesce(s2, '-') || id, n ORDER BY id)",
        "array_agg(s ORDER BY id) FILTER (WHERE false)", "json_agg(s ORDER BY id) FILTER (WHERE false)",
        "cardinality(array_agg(s ORDER BY id))", "json_agg(json_build_object('id', id, 's', s) ORDER BY id)",
        "json_object_agg(id, json_build_array(i, ts) ORDER BY id)", "(array_agg(s ORDER BY id))[2]",
    ],
}
# families aggregated over groups of rows rather than per row
GROUPED = {'collect_aggs'}
# Expressions that fail on some rows: the dead letters must carry PostgreSQL's error.
ERRORS = ["repeat(s, i)", "chr(i)", "make_date(i, 1, 1)", "ln(n)", "lpad(s, i)", "regexp_substr(s, 'o', i)",
          "make_interval(0, 0, 0, 0, 0, 0, f * 1e10)", "to_timestamp(f)", "exp(n * 10000000000)", "div(1, n)",
          "to_char(n, '9.9.9')", "to_date(s, 'YYYY-MM-DD')",
          "ts AT TIME ZONE CASE WHEN id % 5 = 0 THEN s2 ELSE 'Europe/Berlin' END",
          "tz AT TIME ZONE CASE WHEN id % 7 = 0 THEN s ELSE 'Asia/Kolkata' END", "json_build_object(s, 1)",
          "ARRAY[i]::smallint[]", "('{' || s2 || '}')::int[]"]


def model_sql(exprs, source, grouped=False):
    cols = ', '.join('(%s)::text AS c%d' % (e, k) for k, e in enumerate(exprs))
    if grouped:
        return 'SELECT id %% 4 AS id, %s FROM %s GROUP BY id %% 4' % (cols, source)
    return 'SELECT id, %s FROM %s' % (cols, source)


def pg_literal(v):
    if v is None:
        return 'NULL'
    if isinstance(v, float):
        return "'%r'::float8" % v
    if isinstance(v, int):
        return str(v)
    return '$w$%s$w$' % v


def psql(sql, what):
    r = subprocess.run(['psql', '-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1'], input=sql, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit('psql failed (%s): %s' % (what, r.stderr))
    return r.stdout


def read_jsonl(path):
    rows = []
    if os.path.exists(path):
        with open(path, encoding='utf-8') as fh:
            for line in fh:
                if line.strip():
                    rows.append(json.loads(line, parse_int=str, parse_float=str))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--weir', required=True)
    ap.add_argument('--tmp', required=True)
    args = ap.parse_args()
    proj = os.path.join(args.tmp, 'fx')
    for d in ('sources', 'models', 'data'):
        os.makedirs(os.path.join(proj, d), exist_ok=True)
    with open(os.path.join(proj, 'weir.yml'), 'w') as fh:
        fh.write('name: fx\ndefault_target: dev\ntargets:\n  dev:\n    runtime: native\n    state_dir: .weir/dev\n')
    with open(os.path.join(proj, 'sources', 'fx.yml'), 'w') as fh:
        fh.write('sources:\n  fx.rows:\n    connector: file\n    path: data/rows.jsonl\n    format: json\n    columns:\n')
        for c, t in COLUMNS:
            fh.write('      %s: %s\n' % (c, t))
    with open(os.path.join(proj, 'data', 'rows.jsonl'), 'w', encoding='utf-8') as fh:
        for r in ROWS:
            fh.write(json.dumps(r, ensure_ascii=False) + '\n')
    models = dict(MODELS)
    models['errors'] = ERRORS
    with open(os.path.join(proj, 'models', 'schema.yml'), 'w') as fh:
        fh.write('models:\n')
        for name in models:
            if name in GROUPED:
                fh.write('  %s:\n    materialized: upsert\n    key: [id]\n    sink:\n      connector: file\n'
                         '      path: target/out/%s.jsonl\n      format: changelog-json\n' % (name, name))
                continue
            fh.write('  %s:\n    materialized: append\n    sink:\n      connector: file\n'
                     '      path: target/out/%s.jsonl\n      format: json\n' % (name, name))
    for name, exprs in models.items():
        with open(os.path.join(proj, 'models', name + '.sql'), 'w', encoding='utf-8') as fh:
            fh.write(model_sql(exprs, "source('fx.rows')", name in GROUPED) + '\n')
    r = subprocess.run([args.weir, '--project-dir', proj, 'run', '--no-progress'], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit('weir run failed (%d):\n%s%s' % (r.returncode, r.stdout, r.stderr))

    # the same rows in PostgreSQL
    ddl = 'DROP TABLE IF EXISTS fx_rows; CREATE TABLE fx_rows (%s);\n' % ', '.join('%s %s' % c for c in COLUMNS)
    ins = ''.join('INSERT INTO fx_rows VALUES (%s);\n' % ', '.join(pg_literal(r[c]) for c, _ in COLUMNS)
                  for r in ROWS)
    psql("SET client_min_messages = warning; SET TimeZone = 'UTC';\n" + ddl + ins, 'loading the rows')
    # runs one row's SELECT and returns its error message, or NULL when it succeeds
    psql("""CREATE OR REPLACE FUNCTION fx_error(q text) RETURNS text LANGUAGE plpgsql AS $f$
BEGIN EXECUTE q; RETURN NULL; EXCEPTION WHEN OTHERS THEN RETURN SQLERRM; END $f$;""", 'fx_error')

    diffs = []
    total = 0
    for name, exprs in MODELS.items():
        q = model_sql(exprs, 'fx_rows', name in GROUPED)
        out = psql("SET TimeZone = 'UTC';\nSELECT row_to_json(q)::text FROM (%s) q ORDER BY id;\n" % q, name)
        pg = {row['id']: row for row in (json.loads(l, parse_int=str, parse_float=str) for l in out.splitlines() if l)}
        weir = {}
        for row in read_jsonl(os.path.join(proj, 'target', 'out', name + '.jsonl')):
            # a grouped model's changelog folded into its final rows
            if row.pop('op', 'insert') == 'delete':
                weir.pop(row['id'], None)
            else:
                weir[row['id']] = row
        if sorted(pg) != sorted(weir):
            diffs.append('%s: rows %s in weir, %s in PostgreSQL' % (name, sorted(weir), sorted(pg)))
            continue
        for rid in sorted(pg, key=int):
            for k, e in enumerate(exprs):
                total += 1
                a, b = weir[rid].get('c%d' % k), pg[rid].get('c%d' % k)
                if a != b:
                    diffs.append('%s row %s: %s\n    weir: %r\n    pg:   %r' % (name, rid, e, a, b))

    # runtime errors: per row, PostgreSQL's first error in select-list order
    dead = {}
    for d in read_jsonl(os.path.join(proj, 'target', 'dead_letter', 'errors.jsonl')):
        dead[str(d.get('row', {}).get('id'))] = d.get('reason')
    good = {row['id']: row for row in read_jsonl(os.path.join(proj, 'target', 'out', 'errors.jsonl'))}
    q = model_sql(ERRORS, 'fx_rows')
    checks = ''.join("SELECT %d, fx_error($q$%s WHERE id = %d$q$);\n" % (r['id'], q, r['id']) for r in ROWS)
    out = psql("SET TimeZone = 'UTC';\n" + checks, 'errors')
    nerr = 0
    for line in out.splitlines():
        rid, msg = line.split('|', 1)
        total += 1
        if msg:
            nerr += 1
            if dead.get(rid) != msg:
                diffs.append('errors row %s: weir %s, PostgreSQL error %r' %
                             (rid, 'dead letter %r' % dead[rid] if rid in dead else 'output', msg))
        elif rid not in good:
            diffs.append('errors row %s: weir dead letter %r, PostgreSQL succeeds' % (rid, dead.get(rid)))
    if nerr < 5:
        diffs.append('errors: only %d rows fail in PostgreSQL; the check needs failing rows' % nerr)
    if diffs:
        print('\n'.join(diffs))
        print('%d of %d values differ' % (len(diffs), total))
        sys.exit(1)
    print('ok')


if __name__ == '__main__':
    main()
