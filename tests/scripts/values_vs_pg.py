#!/usr/bin/env python3
"""Reading values against PostgreSQL's input functions: for every column type a source
can declare, a list of spellings (valid, malformed, out of range, exotic) is read by
`weir run` from a JSON source as strings, from a JSON source as numbers (the spellings
that are JSON number tokens, and the other JSON values: true, false, null, objects,
arrays) and from a CSV source, each into a JSON file sink;
PostgreSQL casts the same text to the same type (`CAST(text AS type)`, which is the
type's input function). For every spelling weir must accept exactly what PostgreSQL
accepts and read the same value (compared by PostgreSQL: weir's output cast back to the
type IS NOT DISTINCT FROM the input cast, and for numerics the same scale), and turn
everything else into a dead letter with a reason. The few deliberate deviations are
listed in DEVIATIONS with the reason; each must still behave as listed.

Used by tests/scripts/values_vs_pg.sh (PostgreSQL reached through PG* variables).
Prints one line per difference and "N checked, N differences"; exit status 1 on a
difference. Standard library only.
"""
import argparse
import csv
import io
import json
import os
import re
import subprocess
import sys

TYPES = ['smallint', 'integer', 'bigint', 'numeric', 'numeric(12,2)', 'numeric(5,0)', 'real',
         'double precision', 'boolean', 'text', 'varchar(5)', 'char(5)', 'timestamp', 'timestamptz',
         'date', 'interval', 'integer[]', 'text[]', 'numeric(12,2)[]', 'timestamp[]', 'boolean[]']

# arrays: PostgreSQL's array text (JSON strings, CSV fields) ...
ARRAYS = {
    'integer[]': ['{1,2}', '{ 1 , 2 }', ' {} ', '{}', '{NULL}', '{null,"3"}', '{1,{2}}', '{1,2', '1,2', '', '{a}',
                  '{"1"}', '{1} x', '{2147483648}', '{1,,2}', '{{1},{2}}', '[1:2]={1,2}', '{"1"2}', '{1 2}', '{-0}'],
    'text[]': ['{a,b}', '{"a b",""}', '{"x\\"y", "b\\\\c"}', '{ a b , c }', '{NULL,"NULL",null}', '{a\\,b}',
               '{}', '{"é",日本}', '{a', 'abc', '{"a"b}', '{{a}}', '{,}', '{"",""}', '{\t}'],
    'numeric(12,2)[]': ['{1.005,2}', '{-1.5e2,NULL}', '{1e11}', '{abc}', '{NaN}', '{ 0.001 }'],
    'timestamp[]': ['{"2024-01-01 00:00:01",2024-01-02}', '{"2024-01-01T10:00:00Z"}', '{2024-13-01}', '{epoch}',
                    '{infinity,NULL}'],
    'boolean[]': ['{t,f}', '{yes,off,NULL}', '{2}', '{true, false}'],
}
# ... and JSON arrays (and other JSON values) as JSON values
ARRAYS_JSON = {
    'integer[]': ['[1, 2]', '[]', '[null, 3]', '["4"]', '[1.5]', '[true]', '[2147483648]', '[[1], [2]]', '[{"a": 1}]',
                  '[1e2]', '[-0]'],
    'text[]': ['["a", "b c", ""]', '[null]', '[1, true]', '["\\u00e9\\n"]', '[["a"]]', '[{"a": "b"}]'],
    'numeric(12,2)[]': ['[1.005, 2]', '[1e11]', '["1.5"]', '[1e-3]'],
    'timestamp[]': ['["2024-01-01 00:00:01", null]', '[20240101]', '["x"]'],
    'boolean[]': ['[true, false, null]', '["t", 1]', '[2]'],
}

NUMBERS = [
    '0', '-0', '1', '-1', '+1', '12', ' 12 ', '\t7\n', '00012', '12.0', '12.5', '12.50', '-12.5', '1e3', '1E3',
    '1e+2', '1e-0', '1.5e1', '1e-39', '1.000000000000000000000000000000000000000001', '0x10', '0X1A', '1_000',
    '.5', '5.', '-.5', '1e', 'e1', '--1', '+-1', '1 2', '\uff11\uff12', '12abc', '', ' ', 'abc',
    '32767', '32768', '-32768', '-32769', '2147483647', '2147483648', '-2147483648', '-2147483649',
    '9223372036854775807', '9223372036854775808', '-9223372036854775808', '-9223372036854775809',
    '99999999999999999999999999999999999999', '999999999999999999999999999999999999999',
    '0.00000000000000000000000000000000000001', '12.345', '12.355', '-12.345', '0.005', '-0.005',
    '999.995', '99999', '99999.5', '100000', '123456789.123', '1e400', '-1e400', '1e-400',
    '3.4028235e38', '3.4028236e38', '1e-46', '1e-45', '1.17549435e-38', '4.9e-324', '2.5e-324', '1.7976931348623157e308',
    '0.1', '0.30000000000000004', '123456789012345678', '1.23456789012345678',
    'NaN', 'nan', 'Infinity', '-Infinity', '+Infinity', 'inf', '-inf', 'infinity', 'INF', 'nan(1)', 'infinit',
    '1e5000000000', '-nan', '+nan', '+inf', 'Inf', '-INFINITY', ' NaN ', '1.5E+3', '1e+', '.e1', '1.2.3',
    '0.0', '-0.0', '000.000', '1e-5000000000', '12e', '1,5', '١٢',
]
BOOLS = ['t', 'f', 'true', 'false', 'TRUE', 'tRuE', ' true ', 'yes', 'no', 'y', 'n', 'on', 'off', 'of', 'o',
         'tr', 'fa', '2', '1.0', 'truex', '1', '0', '', 'null']
TEXTS = ['abc', 'abcde', 'abcdef', 'abc   ', 'abcdef  ', 'a    ', '  a', '\u00e9\u00e9\u00e9\u00e9\u00e9',
         '\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9', '\u65e5\u672c\u8a9e', 'tab\there', 'line1\nline2', '', ' ',
         'quote"s', 'back\\slash', '\U0001f600']
TIMES = [
    '2024-01-01 00:00:01', '2024-01-01T00:00:01', '2024-01-01T00:00:01Z', '2024-01-01 00:00:01.250',
    '2024-01-01 00:00:01.123456', '2024-01-01 00:00:01.1234565', '2024-01-01 00:00:01.1234567',
    '2024-01-01 00:00:01+02', '2024-01-01 00:00:01-05:30', '2024-01-01 00:00:01.5+05:30',
    '2024-01-01 00:00:01 +0000', '2024-01-01 00:00:01 UTC', '2024-01-01 00:00:01 PST',
    '2024-01-01 00:00:01 Europe/Paris', '2024-01-01', '  2024-01-01 00:00:01  ', '2024-1-1 1:2:3',
    '2024-13-01 00:00:00', '2024-02-30', '2024-02-29 12:00:00', '2023-02-29 12:00:00', '2024-01-01 24:00:00',
    '2024-01-01 23:59:60', '2024-01-01 23:60:00', '2024-01-01 25:00:00', 'epoch', 'infinity', '-infinity',
    'now', 'today', 'tomorrow', 'yesterday', 'allballs', 'Jan 1 2024', 'January 1, 2024 10:00', '1/2/2024',
    '2024/01/02', '20240102', '20240102T101010', 'J2460311', '0001-01-01 00:00:00', '0000-01-01',
    '10000-01-01', '294276-12-31', '294277-01-01', '4713-01-01 BC', '4714-11-24 BC', '4714-11-23 BC',
    '1999-01-08 04:05:06 BC', '99-01-01', '12:00', '2024-01-01 12:00 AM', '2024-01-01 12:00 PM',
    '2024-01-01 00:00:01.', 'Mon Jan 01 2024', '2024-01-01 00:00:01Z+1', '2024-01-01 00:00', '2024-01-01 0:0',
    '2024-01-01T', 'T00:00:01', '2024-001', '2024-W01-1', '', 'abc', '2024-01-01 00:00:01 garbage',
]
INTERVALS = [
    '1 day', '1 day 02:00:00', '5', '5.5', '-5', '1 year 2 months', '1 year 2 mons 3 days 04:05:06.789',
    'P1Y2M3DT4H5M6S', 'P1D', 'PT1.5S', 'P0.5Y', '@ 1 hour ago', '@ 1 hour', '1:2:3', '1:2', '-1 day',
    '1 mon -1 days', '1 week', '1 decade', '1 century', '1 millennium', '1.5 months', '1.5 years', '0.1 days',
    '100:03:00', '-00:00:00.5', '1 day -00:00:01', '2 hours 30 minutes', '2h', '2 hrs', '90 min', '3 secs',
    '1 millisecond', '1 microsecond', '1 us', '1 ms', '+1 day', '1 day ago', '1 foo', '', 'abc',
    'infinity', '178000000 years', '10000000000 days', '2147483648 days', '1 day 1 day', 'P', 'PT',
    '1:60', '25:00:00', '00:00:60', '1 2', '12 13:14', '12 13:14:15', '1 year 1 year',
]

# Spellings accepted on purpose differently from PostgreSQL, with the reason:
# (type prefix or '*', spelling) -> what weir does ('reject' or 'accept').
DEVIATIONS = {
    # glibc's strtod reads C hexadecimal floats, so PostgreSQL on Linux takes them; it
    # is not PostgreSQL's documented syntax (nor portable), and a hex string in a data
    # file is far likelier a mistake than a float
    ('real', '0x10'): 'reject', ('real', '0X1A'): 'reject',
    ('double precision', '0x10'): 'reject', ('double precision', '0X1A'): 'reject',
    ('real', 'nan(1)'): 'reject', ('double precision', 'nan(1)'): 'reject',
    # weir's arrays have one dimension, subscripts from 1 (docs/sql.md)
    ('integer[]', '{{1},{2}}'): 'reject', ('integer[]', '[1:2]={1,2}'): 'reject',
    ('integer[]', '[[1], [2]]'): 'reject', ('text[]', '{{a}}'): 'reject', ('text[]', '[["a"]]'): 'reject',
}
# Whole families weir refuses where PostgreSQL reads a value, with the reason.
TEMPORAL = r'^(timestamp|timestamptz|date)$'
REFUSED = [
    # weir's numeric is a 38-digit decimal without NaN or infinities (docs/sql.md)
    (r'^numeric', r'^\s*[+-]?(nan|inf|infinity)\s*$'),
    (r'^numeric.*\[\]$', r'\b(nan|inf|infinity)\b'),
    # the clock-relative words would make a reread give another value
    (TEMPORAL, r'^\s*(now|today|tomorrow|yesterday)\s*$'),
    # weir reads ISO 8601 and PostgreSQL's own output form (numeric zone offsets, Z,
    # UTC), epoch and infinity; PostgreSQL's other spellings are dead letters:
    # month and day names, slashes (US m/d/y and y/m/d), Julian days, AM/PM, time zone
    # names and abbreviations, compact and ordinal ISO forms, a zone after Z
    (TEMPORAL, r'\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun)[a-z]*\b'),
    (TEMPORAL, r'/'),
    (TEMPORAL, r'^\s*J\d'),
    (TEMPORAL, r'\b(AM|PM)\b'),
    (TEMPORAL, r'\s(PST|PDT|EST|CET|[A-Z][a-z]+/[A-Z][a-z]+)$'),
    (TEMPORAL, r'^\d{8}T\d{6}$'),
    (TEMPORAL, r'^\d{4}-\d{3}$'),
    (TEMPORAL, r'Z[+-]\d'),
    # timestamps end at 294247-01-10 (int64 microseconds since 1970; docs/sql.md)
    (r'^timestamp', r'^\s*2942[5-9]\d|^\s*29427\d'),
]


def weir_cannot_hold(t, pg_text):
    """An unconstrained numeric that weir's 38 digits cannot hold exactly (docs/sql.md):
    weir refuses it rather than rounding it."""
    if t != 'numeric' or pg_text in ('NaN', 'Infinity', '-Infinity'):
        return False
    digits = pg_text.lstrip('-')
    whole, _, frac = digits.partition('.')
    return len(frac) > 38 or len(whole.lstrip('0')) + len(frac) > 38


def types_values():
    for t in TYPES:
        if t in ARRAYS:
            yield t, ARRAYS[t]
            continue
        if t == 'boolean':
            vals = BOOLS + ['0', '1', '12', 'abc']
        elif t in ('text', 'varchar(5)', 'char(5)'):
            vals = TEXTS + ['12.50', '1e3', 'true']
        elif t in ('timestamp', 'timestamptz', 'date'):
            vals = TIMES + ['12', '20240101', '1e3']
        elif t == 'interval':
            vals = INTERVALS + ['12', '1e3', '0.5']
        else:
            vals = NUMBERS
        seen = []
        for v in vals:
            if v not in seen:
                seen.append(v)
        yield t, seen


JSON_NUMBER = re.compile(r'-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$')
# JSON values that are not strings or numbers, written as they are, into every type
JSON_OTHERS = ['true', 'false', 'null', '{"a": [1, "x"]}', '[1, 2]', '{}', '[ ]']


def ident(t):
    return re.sub(r'[^a-z0-9]+', '_', t.replace('[]', ' arr')).strip('_')


def pg_array_text(items):
    """PostgreSQL's array text of a JSON sink's array (numbers as their JSON text)."""
    out = []
    for x in items:
        if x is None:
            out.append('NULL')
        elif isinstance(x, bool):
            out.append('t' if x else 'f')
        else:
            out.append('"' + str(x).replace('\\', '\\\\').replace('"', '\\"') + '"')
    return '{' + ','.join(out) + '}'


def psql(sql, tmp):
    path = os.path.join(tmp, 'q.sql')
    with open(path, 'w') as f:
        f.write(sql)
    r = subprocess.run(['psql', '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-f', path],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit('psql failed: ' + r.stderr)
    return r.stdout


def lit(s):
    return "'" + s.replace("'", "''") + "'"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--weir', required=True)
    ap.add_argument('--tmp', required=True)
    a = ap.parse_args()
    tmp = a.tmp
    proj = os.path.join(tmp, 'values')
    for d in ('sources', 'models', 'data'):
        os.makedirs(os.path.join(proj, d), exist_ok=True)
    with open(os.path.join(proj, 'weir.yml'), 'w') as f:
        f.write('name: values\n')

    cases = []           # (type, encoding, value)
    sources = ['sources:']
    configs = ['models:']
    for t, vals in types_values():
        base = ident(t)
        enc_rows = {'str': [], 'num': [], 'csv': []}
        for v in vals:
            enc_rows['str'].append(v)
            if JSON_NUMBER.match(v):
                enc_rows['num'].append(v)
            if '\n' not in v and '\r' not in v:
                enc_rows['csv'].append(v)
        enc_rows['num'] += JSON_OTHERS + ARRAYS_JSON.get(t, [])
        for enc, rows in enc_rows.items():
            if not rows:
                continue
            name = '%s_%s' % (base, enc)
            data = os.path.join(proj, 'data', name + ('.csv' if enc == 'csv' else '.jsonl'))
            with open(data, 'w', newline='') as f:
                if enc == 'csv':
                    w = csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator='\n')
                    w.writerow(['i', 'v'])
                for i, v in enumerate(rows):
                    cases.append((t, enc, v, name, i))
                    if enc == 'str':
                        f.write('{"i": %d, "v": %s}\n' % (i, json.dumps(v)))
                    elif enc == 'num':
                        f.write('{"i": %d, "v": %s}\n' % (i, v))
                    else:
                        w.writerow([str(i), v])
            sources.append('  %s:\n    connector: file\n    path: data/%s\n    format: %s\n'
                           '    columns: {i: bigint, v: "%s"}' % (name, os.path.basename(data),
                                                                   'csv' if enc == 'csv' else 'json', t))
            with open(os.path.join(proj, 'models', name + '.sql'), 'w') as f:
                f.write("SELECT i, v FROM source('%s')\n" % name)
            configs.append('  %s: {materialized: append, sink: {connector: file, path: out/%s.jsonl}}'
                           % (name, name))
    with open(os.path.join(proj, 'sources', 's.yml'), 'w') as f:
        f.write('\n'.join(sources) + '\n')
    with open(os.path.join(proj, 'models', 'schema.yml'), 'w') as f:
        f.write('\n'.join(configs) + '\n')

    r = subprocess.run([a.weir, '--project-dir', proj, 'run', '--no-progress'], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit('weir run failed (%d): %s' % (r.returncode, r.stderr[-2000:]))

    # weir's results: name -> {i: ('ok', text) | ('dead', reason)}
    got = {}
    for t, enc, v, name, i in cases:
        got.setdefault(name, {})
    for name in got:
        out = os.path.join(proj, 'out', name + '.jsonl')
        if os.path.exists(out):
            for line in open(out):
                # numbers as their JSON text: the scale of a numeric is part of its value
                row = json.loads(line, parse_float=str, parse_int=str)
                val = row['v']
                if val is None:
                    text = None
                elif isinstance(val, bool):
                    text = 'true' if val else 'false'
                elif isinstance(val, list):
                    text = pg_array_text(val)
                else:
                    text = val
                got[name][int(row['i'])] = ('ok', text)
        dl = os.path.join(proj, 'target', 'dead_letter', name + '.jsonl')
        if os.path.exists(dl):
            lines = open(dl).read().splitlines()
            for line in lines:
                d = json.loads(line)
                raw = d.get('raw', '')
                m = re.search(r'"i": (\d+)', raw) or re.match(r'"(\d+)"', raw)
                if not m:
                    sys.exit('cannot find the row of dead letter %s' % line)
                got[name][int(m.group(1))] = ('dead', d['reason'])

    # PostgreSQL: the input cast, and weir's output cast back
    # PostgreSQL reads a JSON value into a column of the type with json_populate_record,
    # which hands a string's content or a number's text to the type's input function
    # (with the column's typmod: too long a varchar is an error, as on INSERT or COPY);
    # a CSV field is read like a JSON string (COPY uses the same input function)
    stmts = ['CREATE TEMP TABLE c (k int, t text, j text, v text, w text);']
    for t in TYPES:
        stmts.append('CREATE TEMP TABLE r_%s (v %s);' % (ident(t), t))
    stmts.append('''CREATE FUNCTION pg_temp.try(j text, tbl text) RETURNS text AS $$
DECLARE r text;
BEGIN
  EXECUTE format('SELECT (json_populate_record(NULL::%s, $1::json)).v::text', tbl) INTO r USING j;
  RETURN 'ok:' || coalesce(r, 'NULL');
EXCEPTION WHEN others THEN RETURN 'err:' || SQLERRM;
END $$ LANGUAGE plpgsql;''')
    stmts.append('''CREATE FUNCTION pg_temp.same(v text, w text, t text) RETURNS text AS $$
DECLARE r boolean;
BEGIN
  EXECUTE format('SELECT CAST($1 AS %s) IS NOT DISTINCT FROM CAST($2 AS %s)', t, t) INTO r USING v, w;
  IF r AND t LIKE 'numeric%%' AND t NOT LIKE '%%[]' THEN
    EXECUTE format('SELECT scale(CAST($1 AS %s)) IS NOT DISTINCT FROM scale(CAST($2 AS numeric))', t) INTO r USING v, w;
  END IF;
  RETURN CASE WHEN r THEN 'same' ELSE 'differs' END;
EXCEPTION WHEN others THEN RETURN 'err:' || SQLERRM;
END $$ LANGUAGE plpgsql;''')
    values = []
    for k, (t, enc, v, name, i) in enumerate(cases):
        res = got[name].get(i)
        w = res[1] if res and res[0] == 'ok' else None
        j = '{"v": %s}' % (v if enc == 'num' else json.dumps(v))
        values.append('(%d, %s, %s, %s, %s)' % (k, lit(t), lit(j), lit(v), 'NULL' if w is None else lit(w)))
    for s in range(0, len(values), 500):
        stmts.append('INSERT INTO c VALUES ' + ',\n'.join(values[s:s + 500]) + ';')
    # arrays are compared as PostgreSQL read them (a JSON array is no array text)
    tbl = "'r_' || regexp_replace(regexp_replace(replace(t, '[]', ' arr'), '[^a-z0-9]+', '_', 'g'), '^_|_$', '', 'g')"
    stmts.append("SELECT json_build_array(k, pg_temp.try(j, %s), CASE WHEN w IS NULL THEN '-' "
                 "WHEN t LIKE '%%[]' THEN pg_temp.same(substr(pg_temp.try(j, %s), 4), w, t) "
                 "ELSE pg_temp.same((json_populate_record(NULL::r_text, j::json)).v, w, t) END) FROM c ORDER BY k;"
                 % (tbl, tbl))
    out = psql('\n'.join(stmts), tmp)
    pg = {}
    for line in out.splitlines():
        k, res, same = json.loads(line)
        pg[k] = (res, same)

    differences = 0
    for k, (t, enc, v, name, i) in enumerate(cases):
        res, same = pg[k]
        mine = got[name].get(i)
        pg_ok = res.startswith('ok:')
        dev = DEVIATIONS.get((t, v))
        if dev is None and pg_ok and (any(re.search(tp, t) and re.search(vp, v, re.I) for tp, vp in REFUSED) or
                                      weir_cannot_hold(t, res[3:])):
            dev = 'reject'
        want_ok = pg_ok if dev is None else dev == 'accept'
        where = '%s %s %r' % (t, {'str': 'JSON string', 'num': 'JSON value', 'csv': 'CSV field'}[enc], v)
        if mine is None:
            print('%s: no row and no dead letter' % where)
            differences += 1
        elif want_ok and mine[0] != 'ok':
            print('%s: PostgreSQL reads %s, weir: %s' % (where, res[3:], mine[1]))
            differences += 1
        elif not want_ok and mine[0] == 'ok':
            print('%s: PostgreSQL: %s, weir reads %r' % (where, res[4:] if not pg_ok else 'a value (a deviation)',
                                                         mine[1]))
            differences += 1
        elif want_ok and dev is None and mine[1] is None and res != 'ok:NULL':
            print('%s: PostgreSQL reads %s, weir reads NULL' % (where, res[3:]))
            differences += 1
        elif want_ok and dev is None and mine[1] is not None and same != 'same':
            print('%s: PostgreSQL reads %s, weir reads %r (%s)' % (where, res[3:], mine[1], same))
            differences += 1
        elif mine[0] == 'dead' and not mine[1]:
            print('%s: a dead letter without a reason' % where)
            differences += 1
    print('%d checked, %d differences' % (len(cases), differences))
    return 1 if differences else 0


if __name__ == '__main__':
    sys.exit(main())
