#!/usr/bin/env python3
"""Differential correctness harness: weir's incremental results against PostgreSQL's
batch results.

For every seed it generates a random source schema, a random event stream (insert-only
`json` or keyed `changelog-json`) and a random query (filters, expressions, GROUP BY
with aggregates and HAVING, DISTINCT, global aggregates, UNION ALL, subqueries, CTEs,
chained models with ref()), writes a throwaway weir project, runs `weir run`, replays
the changelog it writes, loads the final contents of the input into PostgreSQL, runs
the same query there and compares the two multisets of rows by column type.

Standard library only. See tests/differential/README.md for usage and coverage.
"""

import argparse
import concurrent.futures
import copy
import glob
import datetime
import decimal
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from decimal import Decimal

# families.py imports this module as `difftest`: make that this very module when it
# runs as a script.
sys.modules.setdefault('difftest', sys.modules[__name__])

# Worker threads start from DefaultContext (28 digits): widen it before any starts.
decimal.DefaultContext.prec = 200
decimal.setcontext(decimal.Context(prec=200))
EXACT = decimal.Context(prec=1000)

PG_DB = os.environ.get('DIFFTEST_PGDATABASE', 'weir_difftest')
PG_TABLE = 't_events'
SOURCE_NAME = 't.events'
FINAL_MODEL = 'm_final'
WEIR_TIMEOUT = float(os.environ.get('DIFFTEST_WEIR_TIMEOUT', '120'))

# ----------------------------------------------------------------------------------------
# Types. The generator tracks PostgreSQL's result type of every expression exactly for
# the numeric family (smallint < integer < bigint < numeric < double precision), so that
# UNION ALL branches and CASE arms line up and overflow can be avoided.

NUM_RANK = {'smallint': 0, 'integer': 1, 'bigint': 2, 'numeric': 3, 'double precision': 4}
INT_TYPES = ('smallint', 'integer', 'bigint')
INT_LIMIT = {'smallint': 32767, 'integer': 2 ** 31 - 1, 'bigint': 2 ** 63 - 1}
HUGE = 10 ** 15  # magnitude bound for values we cannot bound (numeric division)


# the `replicas` of every weir run's summary (list.append is atomic across the job threads)
RUN_REPLICAS = []

def cat_of(ty):
    if ty in INT_TYPES:
        return 'int'
    return {'numeric': 'numeric', 'double precision': 'float', 'text': 'text',
            'boolean': 'bool', 'timestamp': 'ts', 'date': 'date'}[ty]


def promote(a, b):
    if a in NUM_RANK and b in NUM_RANK:
        return a if NUM_RANK[a] >= NUM_RANK[b] else b
    return a


def fits(ty, mag, sc=0):
    """True when values of magnitude `mag` (and, for numeric, display scale `sc`) are
    safe in type `ty`: no integer overflow, and numerics within the 38 significant
    digits weir represents exactly (src/base/decimal.h), with head-room."""
    if ty in INT_LIMIT:
        return mag <= INT_LIMIT[ty] // 4
    if ty == 'numeric':
        return len(str(int(mag))) + sc <= 34
    return True


class X:
    """A typed SQL expression: a template over child expressions, or a raw leaf.

    mag bounds the absolute value (numeric family), inexact marks values that depend on
    the order of floating-point accumulation (SUM/AVG of double precision): those are
    compared with a tolerance and never grouped, compared, rounded or cast to text."""
    __slots__ = ('ty', 'tmpl', 'kids', 'raw', 'mag', 'inexact', 'iscol', 'sc')

    def __init__(self, ty, tmpl=None, kids=(), raw=None, mag=None, inexact=None, iscol=False, sc=None):
        self.iscol = iscol
        # numeric display scale bound (PostgreSQL's dscale): by default that of the
        # widest numeric child (right for + - % abs CASE COALESCE GREATEST MIN MAX)
        self.sc = sc if sc is not None else max([k.sc for k in kids if k.ty == 'numeric'] or [0])
        self.ty = ty
        self.tmpl = tmpl
        self.kids = list(kids)
        self.raw = raw
        self.mag = mag if mag is not None else max([k.mag for k in self.kids] or [0])
        self.inexact = inexact if inexact is not None else any(k.inexact for k in self.kids)

    def has_col(self):
        return self.iscol or any(k.has_col() for k in self.kids)

    def sql(self):
        if self.raw is not None:
            return self.raw
        kids = [k.sql() for k in self.kids]
        if '{0}::' in self.tmpl and kids[0].startswith('-'):
            kids[0] = '(' + kids[0] + ')'  # -1::text is -(1::text)
        return self.tmpl.format(*kids)

    def __repr__(self):
        return 'X(%s: %s)' % (self.ty, self.sql())


class Col:
    """A column visible to an expression: its SQL reference, type and bounds."""
    __slots__ = ('name', 'ty', 'mag', 'inexact', 'sc')

    def __init__(self, name, ty, mag, inexact=False, sc=0):
        self.name, self.ty, self.mag, self.inexact, self.sc = name, ty, mag, inexact, sc

    def x(self, qual=None):
        return X(self.ty, raw=(qual + '.' + self.name) if qual else self.name,
                 mag=self.mag, inexact=self.inexact, iscol=True, sc=self.sc)


def q(s):
    return "'" + s.replace("'", "''") + "'"


TEXT_VOCAB = ['', 'a', 'A', 'b', 'abc', 'ABC', 'Abc', 'abcdef', 'hello world', ' padded ',
              'Zürich', 'zürich', 'ZÜRICH', 'ÄÖÜ', 'naïve café', 'x_y', '50%', "O'Brien",
              'a,b,c', 'one two three', '日本語', 'tab\there', 'line\nbreak', 'ab ab', 'z',
              'Ước mơ', 'ＡＢＣ', 'straße']

TS_UNITS_TRUNC = ['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year']
TS_FIELDS = ['year', 'month', 'day', 'hour', 'minute', 'second', 'dow', 'isodow', 'doy',
             'week', 'quarter', 'epoch', 'milliseconds', 'microseconds']
INTERVALS = ["INTERVAL '90 minutes'", "INTERVAL '1 day'", "INTERVAL '1' HOUR",
             "INTERVAL '2 hours 30 minutes'", "INTERVAL '1 month'", "INTERVAL '45 seconds'",
             "INTERVAL '1 day 12:00:00'"]

# ----------------------------------------------------------------------------------------
# Schema and data.


class Schema:
    def __init__(self, cols, updating, ts_base):
        self.cols = cols            # list of dicts: name, decl, ty, domain, null_rate, ...
        self.updating = updating    # changelog-json with primary key id
        self.ts_base = ts_base

    def col(self, name):
        for c in self.cols:
            if c['name'] == name:
                return c
        raise KeyError(name)


def fmt_ts(dt, sep=' '):
    s = dt.strftime('%Y-%m-%d') + sep + dt.strftime('%H:%M:%S')
    if dt.microsecond:
        s += ('.%06d' % dt.microsecond).rstrip('0')
    return s


def gen_numeric_value(r, p, s, allow_extra):
    """The text of a value for numeric(p,s). With allow_extra it sometimes carries one
    more fraction digit than the scale, so input rounding is exercised; the integer part
    stays below 10^(p-s) - 1 so that rounding up never overflows the precision."""
    intdigits = p - s
    ip = 0
    if intdigits > 0:
        ip = r.randint(0, min(10 ** min(intdigits, 4) - 1, 10 ** intdigits - 2))
        if r.random() < 0.3:
            ip = r.randint(0, min(9, 10 ** intdigits - 2))
        elif r.random() < 0.08:
            ip = r.randint(0, 10 ** intdigits - 2)  # as wide as the type allows
    frac_digits = s + 1 if (allow_extra and intdigits >= 1 and r.random() < 0.2) else s
    if frac_digits > 0:
        fp = r.randint(0, 10 ** frac_digits - 1)
        if r.random() < 0.3:
            fp = r.choice([0, 5 * 10 ** (frac_digits - 1), 10 ** frac_digits - 1])
        text = '%d.%0*d' % (ip, frac_digits, fp)
    else:
        text = str(ip)
    if r.random() < 0.3 and text.strip('0.') != '':
        text = '-' + text
    return text


VALUE_TYPES = ['bigint', 'integer', 'smallint', 'numeric', 'double precision', 'text',
               'boolean', 'timestamp']
TYPE_PREFIX = {'bigint': 'bi', 'integer': 'in', 'smallint': 'sm', 'numeric': 'nu',
               'double precision': 'fl', 'text': 'tx', 'boolean': 'bo', 'timestamp': 'ts'}


def gen_column(r, t, name, ts_base):
    """A value column of type t: its own NULL rate and a small domain of values."""
    null_rate = r.choice([0.0, 0.05, 0.15, 0.3, 0.5])
    dsize = r.randint(2, 8)
    c = {'name': name, 'ty': t, 'decl': t, 'null_rate': null_rate}
    if t == 'smallint':
        dom = [r.randint(-5, 12) for _ in range(dsize)]
        if r.random() < 0.3:
            dom.append(r.choice([100, -100, 0]))
        c['mag'] = 100
    elif t == 'integer':
        dom = [r.randint(-20, 20) for _ in range(dsize)]
        if r.random() < 0.4:
            dom.append(r.choice([1000, -999, 0, 7]))
        c['mag'] = 1000
    elif t == 'bigint':
        dom = [r.randint(-10, 30) for _ in range(dsize)]
        if r.random() < 0.4:
            dom.append(r.choice([3000000000, -5000000000, 123456789]))
        if r.random() < 0.1:
            # SUM/AVG of these leave the int64 range: no arithmetic on this column
            dom.append(r.choice([9000000000000000000, -9000000000000000000, 2 ** 63 - 1]))
    elif t == 'numeric' and r.random() < 0.3:
        # unconstrained numeric: every value keeps its own scale (dscale)
        pool = ['1.5', '2.125', '3', '0.00001', '-7.50', '10', '0.1', '2.0', '-0.333',
                '1234.5678', '5.000', '0.000000000000000000001', '99.99', '-2']
        dom = r.sample(pool, min(dsize, len(pool)))
        c['mag'] = 10 ** 4
    elif t == 'numeric':
        p = r.randint(1, 18)
        s = r.randint(0, min(p, 6))
        c['decl'] = 'numeric(%d,%d)' % (p, s)
        c['p'], c['s'] = p, s
        dom = list({gen_numeric_value(r, p, s, True) for _ in range(dsize)})
        dom.sort()
        c['mag'] = 10 ** min(p - s, 4)
    elif t == 'double precision':
        pool = [0.1, 0.2, 0.25, 0.3, 1.5, -2.75, 3.14159, 100.0, -0.5, 0.0, 0.001,
                12345.678, 2.5, 0.5, -2.5, 1.0, 1 / 3, 7.0, -13.125, 1e-7]
        dom = r.sample(pool, min(dsize, len(pool)))
        if r.random() < 0.1:
            dom.append(-0.0)
        c['mag'] = 20000
    elif t == 'text':
        dom = r.sample(TEXT_VOCAB, min(dsize + 1, len(TEXT_VOCAB)))
        c['mag'] = 0
    elif t == 'boolean':
        dom = [True, False]
        c['mag'] = 0
    else:
        dom = []
        for _ in range(dsize + 2):
            dt = ts_base + datetime.timedelta(seconds=r.randint(0, 3 * 86400))
            if r.random() < 0.3:
                dt = dt.replace(minute=0, second=0)
            if r.random() < 0.3:
                dt = dt.replace(microsecond=r.choice([250000, 500000, 123456, 1, 999999]))
            dom.append(dt)
        c['mag'] = 0
    c['domain'] = dom
    if t in INT_TYPES or t == 'numeric':
        c['mag'] = int(max([abs(Decimal(str(v))) for v in dom] + [0])) + 1
    if t == 'numeric':
        c['sc'] = c['s'] if 's' in c else max(-Decimal(v).as_tuple().exponent for v in dom)
    return c


def gen_schema(r, updating):
    ncols = r.randint(3, 7)
    cols = []
    ts_base = datetime.datetime(*r.choice([(2024, 1, 1), (2024, 2, 28), (2023, 12, 31), (2024, 3, 31)]))
    if updating:
        cols.append({'name': 'id', 'decl': 'bigint', 'ty': 'bigint', 'mag': 10 ** 6,
                     'null_rate': 0.0, 'domain': None})
    for i in range(ncols):
        t = r.choice(VALUE_TYPES)
        cols.append(gen_column(r, t, '%s%d' % (TYPE_PREFIX[t], i + 1), ts_base))
    return Schema(cols, updating, ts_base)


def gen_value(r, c):
    if c['null_rate'] and r.random() < c['null_rate']:
        return None
    return r.choice(c['domain'])


def gen_row(r, schema, key=None):
    row = {}
    for c in schema.cols:
        if c['name'] == 'id':
            row['id'] = key
        else:
            row[c['name']] = gen_value(r, c)
    return row


def gen_events(r, schema, nrows):
    """Insert-only: a list of rows. Updating: a list of (key, row or None for delete);
    ops are derived by replay (derive_ops), so any sub-list is still a valid stream."""
    if not schema.updating:
        return [gen_row(r, schema) for _ in range(nrows)]
    nkeys = max(3, nrows // r.choice([3, 4, 6]))
    live = {}
    events = []
    for _ in range(nrows):
        k = r.randint(1, nkeys)
        if k not in live:
            row = gen_row(r, schema, k)
            live[k] = row
            events.append((k, row))
        elif r.random() < 0.35:
            del live[k]
            events.append((k, None))
        else:
            row = dict(live[k])
            nonkey = [c for c in schema.cols if c['name'] != 'id']
            for c in r.sample(nonkey, r.randint(1, len(nonkey))):
                row[c['name']] = gen_value(r, c)
            live[k] = row
            events.append((k, row))
    return events


def derive_ops(schema, events):
    """-> (list of (op, row)), final rows."""
    if not schema.updating:
        return [('insert', row) for row in events], list(events)
    live = {}
    order = []
    ops = []
    for k, row in events:
        if row is None:
            if k in live:
                ops.append(('delete', live.pop(k)))
        elif k in live:
            live[k] = row
            ops.append(('update', row))
        else:
            live[k] = row
            order.append(k)
            ops.append(('insert', row))
    final = [live[k] for k in sorted(live)]
    return ops, final


class SourceSpec:
    """One source of a case: its schema (columns as gen_column makes them), format,
    event time and where its data lives (file for weir, temporary table for PostgreSQL)."""

    def __init__(self, name, schema, file=None, table=None, et=None, delay_us=None):
        self.name = name                      # 't.a'
        self.short = name.split('.')[-1]      # its default alias in FROM
        self.schema = schema
        self.updating = schema.updating       # changelog-json, primary_key [id]
        self.file = file or 'data/%s.jsonl' % self.short
        self.table = table or 't_' + self.short
        self.et = et                          # event_time column, or None
        self.delay_us = delay_us              # watermark_delay in microseconds

    @property
    def cols(self):
        return self.schema.cols


def derive_ops_multi(sources, events):
    """events: [(source index, event)] in arrival order, an event as gen_events makes it
    (so any sub-list is still a valid stream). -> ([(source index, op, row)] in order,
    [final rows of each source])."""
    live = [{} for _ in sources]
    finals = [[] for _ in sources]
    ops = []
    for si, e in events:
        if not sources[si].updating:
            ops.append((si, 'insert', e))
            finals[si].append(e)
            continue
        k, row = e
        lv = live[si]
        if row is None:
            if k in lv:
                ops.append((si, 'delete', lv.pop(k)))
        elif k in lv:
            lv[k] = row
            ops.append((si, 'update', row))
        else:
            lv[k] = row
            ops.append((si, 'insert', row))
    for si, s in enumerate(sources):
        if s.updating:
            finals[si] = [live[si][k] for k in sorted(live[si])]
    return ops, finals


def json_value(r, c, v):
    """The JSON text of one cell, in one of the spellings weir must accept."""
    if v is None:
        return 'null'
    t = c['ty']
    if t in INT_TYPES:
        return str(v)
    if t == 'numeric':
        if r.random() < 0.25:
            return '"%s"' % v
        m = re.match(r'^(-?)(\d+)\.(\d*[1-9])$', v)
        if m and r.random() < 0.1:
            # the same value in exponent notation: -12.5 -> -125e-1
            return '%s%de-%d' % (m.group(1), int(m.group(2) + m.group(3)), len(m.group(3)))
        return v
    if t == 'double precision':
        return repr(v)
    if t == 'text':
        return json.dumps(v, ensure_ascii=r.random() < 0.5)
    if t == 'boolean':
        return 'true' if v else 'false'
    if t == 'timestamp':
        x = r.random()
        if x < 0.6:
            return '"%s"' % fmt_ts(v)
        if x < 0.9:
            return '"%s"' % fmt_ts(v, 'T')
        return '"%sZ"' % fmt_ts(v, 'T')
    raise ValueError(t)


def encode_events(seed, schema, ops, salt=0):
    r = random.Random(seed * 7919 + 17 + salt * 1013)
    op_first = r.random() < 0.5
    lines = []
    for op, row in ops:
        parts = []
        for c in schema.cols:
            v = row.get(c['name'])
            if v is None and not schema.updating and r.random() < 0.3:
                continue  # an absent key is NULL too
            parts.append('%s: %s' % (json.dumps(c['name']), json_value(r, c, v)))
        if schema.updating:
            o = '"op": "%s"' % op
            parts = [o] + parts if op_first else parts + [o]
        lines.append('{' + ', '.join(parts) + '}')
    return '\n'.join(lines) + ('\n' if lines else '')


def pg_literal(c, v):
    if v is None:
        return 'NULL'
    t = c['ty']
    if t in INT_TYPES:
        return str(v)
    if t == 'numeric':
        return q(v)
    if t == 'double precision':
        return q(repr(v))
    if t == 'text':
        return q(v)
    if t == 'boolean':
        return 'true' if v else 'false'
    if t == 'timestamp':
        return q(fmt_ts(v))
    raise ValueError(t)


# ----------------------------------------------------------------------------------------
# Expression generator.

class Gen:
    """Random typed expressions over a scope of columns (row level)."""

    def __init__(self, r, cols, nrows, schema, qual=None):
        self.r = r
        self.cols = cols
        self.nrows = nrows
        self.schema = schema
        self.qual = qual

    # -- leaves --
    def columns(self, cat, exact=False):
        return [c for c in self.cols if cat_of(c.ty) == cat and not (exact and c.inexact)]

    def leaf(self, cat, exact=False):
        r = self.r
        cs = self.columns(cat, exact)
        if cs and r.random() < 0.88:
            c = r.choice(cs)
            qual = self.qual if (self.qual and r.random() < 0.3) else None
            return c.x(qual)
        if not cs and self.cols and r.random() < 0.8:
            d = self.derived_leaf(cat)
            if d is not None:
                return d
        return self.literal(cat)

    def derived_leaf(self, cat):
        """A small expression of category `cat` over a column of another category, for
        scopes without a column of that category (so predicates are rarely constant)."""
        r = self.r
        c = r.choice([c for c in self.cols if not c.inexact] or self.cols)
        x = c.x()
        cc = cat_of(c.ty)
        if cat == 'bool':
            if r.random() < 0.2:
                return X('boolean', r.choice(['({0} IS NULL)', '({0} IS NOT NULL)']), [x], mag=0)
            if cc == 'bool':
                return x
            lit = self.literal(cc, allow_null=False)
            return X('boolean', '({0} %s {1})' % r.choice(['=', '<>', '<', '>=']), [x, lit], mag=0)
        if cat == 'text' and not c.inexact:
            return X('text', 'CAST({0} AS text)', [x])
        if cat == 'int':
            if cc == 'text':
                return X('integer', 'length({0})', [x], mag=100)
            if cc == 'bool':
                return X('integer', 'CAST({0} AS integer)', [x], mag=1)
            if cc in ('numeric', 'float') and not c.inexact and fits('bigint', c.mag + 1):
                return X('bigint', 'CAST({0} AS bigint)', [x], mag=c.mag + 1)
            if cc == 'ts':
                return X('integer', 'CAST(extract(hour from {0}) AS integer)', [x], mag=30)
        if cat == 'numeric':
            if cc == 'int':
                return X('numeric', 'CAST({0} AS numeric)', [x])
            if cc == 'ts':
                return X('numeric', 'extract(minute from {0})', [x], mag=60)
        if cat == 'float' and cc in ('int', 'numeric'):
            return X('double precision', 'CAST({0} AS double precision)', [x])
        if cat == 'date' and cc == 'ts':
            return X('date', 'CAST({0} AS date)', [x], mag=0)
        return None

    def literal(self, cat, allow_null=True):
        r = self.r
        if allow_null and r.random() < 0.04:
            ty = {'int': 'integer', 'numeric': 'numeric', 'float': 'double precision',
                  'text': 'text', 'bool': 'boolean', 'ts': 'timestamp', 'date': 'date'}[cat]
            return X(ty, raw=r.choice(['CAST(NULL AS %s)', 'NULL::%s']) % ty, mag=0)
        if cat == 'int':
            if r.random() < 0.03:
                v = r.choice([3000000000, -4000000000])
                return X('bigint', raw=str(v), mag=abs(v))
            v = r.randint(-3, 20)
            return X('integer', raw=str(v), mag=abs(v))
        if cat == 'numeric':
            s = r.choice(['0.5', '1.25', '2.50', '-1.5', '0.1', '10.005', '3.0', '0.001', '-0.75', '100.5'])
            return X('numeric', raw=s, mag=abs(float(s)) + 1, sc=len(s.split('.')[1]))
        if cat == 'float':
            s = r.choice(['0.5', '1.5', '-2.25', '0.1', '3', '2.5', '1e-3', '100'])
            form = r.choice(["CAST('%s' AS double precision)", "'%s'::float8", "%s::double precision"])
            if s.startswith('-') and form.startswith('%s'):
                form = '(' + form + ')'
            return X('double precision', raw=form % s, mag=abs(float(s)) + 1)
        if cat == 'text':
            return X('text', raw=q(r.choice(TEXT_VOCAB)), mag=0)
        if cat == 'bool':
            return X('boolean', raw=r.choice(['TRUE', 'FALSE', 'true']), mag=0)
        if cat == 'ts':
            dt = self.schema.ts_base + datetime.timedelta(seconds=r.randint(0, 3 * 86400))
            dt = dt.replace(second=0)
            if r.random() < 0.3:
                dt = dt.replace(minute=0)
            return X('timestamp', raw="TIMESTAMP '%s'" % fmt_ts(dt), mag=0)
        if cat == 'date':
            d = self.schema.ts_base.date() + datetime.timedelta(days=r.randint(0, 3))
            return X('date', raw="DATE '%s'" % d.isoformat(), mag=0)
        raise ValueError(cat)

    # -- entry --
    def expr(self, cat, depth, exact=False, need_col=False):
        """An expression of category `cat`; need_col: it must read a column (or, above
        an aggregate, a group key or an aggregate)."""
        for attempt in range(40):
            if need_col and attempt >= 30:
                need_col = False
            if depth <= 0 or self.r.random() < 0.25:
                e = self.leaf(cat, exact)
            else:
                maker = self.pick_maker(cat)
                e = maker(depth - 1)
            if e is None:
                continue
            if exact and e.inexact:
                continue
            if cat_of(e.ty) != cat or not fits(e.ty, e.mag, e.sc):
                continue
            if need_col and not e.has_col():
                continue
            return e
        return self.literal(cat, allow_null=False)

    def pick_maker(self, cat):
        table = {
            'int': [(self.m_arith, 4), (self.m_mul, 2), (self.m_div, 2), (self.m_mod, 2),
                    (self.m_neg, 1), (self.m_abs, 1), (self.m_length, 2), (self.m_position, 1),
                    (self.m_to_int, 2), (self.m_case, 2), (self.m_coalesce, 2), (self.m_nullif, 1),
                    (self.m_greatest, 1), (self.m_extract_int, 1)],
            'numeric': [(self.m_arith, 3), (self.m_mul, 2), (self.m_div, 2), (self.m_mod, 1),
                        (self.m_round, 3), (self.m_neg, 1), (self.m_abs, 1), (self.m_extract, 2),
                        (self.m_to_numeric, 2), (self.m_case, 1), (self.m_coalesce, 1),
                        (self.m_nullif, 1), (self.m_greatest, 1)],
            'float': [(self.m_arith, 3), (self.m_mul, 2), (self.m_div, 2), (self.m_round, 2),
                      (self.m_neg, 1), (self.m_abs, 1), (self.m_to_float, 2), (self.m_case, 1),
                      (self.m_coalesce, 1), (self.m_greatest, 1)],
            'text': [(self.m_strfunc, 4), (self.m_substring, 2), (self.m_concat, 2),
                     (self.m_pipes, 2), (self.m_split_part, 1), (self.m_replace, 1),
                     (self.m_leftright, 1), (self.m_to_text, 2), (self.m_case, 1),
                     (self.m_coalesce, 1), (self.m_nullif, 1)],
            'bool': [(self.m_cmp, 6), (self.m_andor, 3), (self.m_not, 1), (self.m_isnull, 2),
                     (self.m_in, 2), (self.m_between, 2), (self.m_like, 2), (self.m_distinct, 1),
                     (self.m_booltest, 1), (self.m_case, 1), (self.m_coalesce, 1)],
            'ts': [(self.m_date_trunc, 3), (self.m_ts_interval, 2), (self.m_case, 1),
                   (self.m_coalesce, 1), (self.m_greatest, 1), (self.m_date_to_ts, 1)],
            'date': [(self.m_to_date, 4), (self.m_case, 1), (self.m_coalesce, 1)],
        }[cat]
        self._cat = cat
        tot = sum(w for _, w in table)
        x = self.r.random() * tot
        for m, w in table:
            x -= w
            if x <= 0:
                return m
        return table[-1][0]

    def has_cols(self, cat):
        if isinstance(self, AggGen):
            return True
        return any(cat_of(c.ty) == cat for c in self.cols)

    def pick_cat(self, cats):
        """A category from `cats` (repeats weigh more), preferring ones with columns."""
        w = [(c, 1.0 if self.has_cols(c) else 0.15) for c in cats]
        x = self.r.random() * sum(v for _, v in w)
        for c, v in w:
            x -= v
            if x <= 0:
                return c
        return cats[-1]

    def num_operand(self, depth, exact=True):
        cat = self.pick_cat(['int', 'int', 'numeric', 'float'])
        return self.expr(cat, depth, exact)

    # -- numeric family --
    def m_arith(self, d):
        cat = self._cat
        a = self.expr(cat, d, exact=False)
        b = self.expr(self.r.choice([cat, cat, 'int']) if cat != 'int' else 'int', d, exact=False)
        if self.r.random() < 0.5:
            a, b = b, a
        ty = promote(a.ty, b.ty)
        if cat_of(ty) != cat:
            return None
        op = self.r.choice(['+', '-'])
        return X(ty, '({0} %s {1})' % op, [a, b], mag=a.mag + b.mag)

    def m_mul(self, d):
        cat = self._cat
        a = self.expr(cat, d, exact=False)
        b = self.literal('int', allow_null=False) if self.r.random() < 0.6 else \
            self.expr(self.r.choice(['int', cat]), d, exact=False)
        if self.r.random() < 0.5:
            a, b = b, a
        ty = promote(a.ty, b.ty)
        if cat_of(ty) != cat:
            return None
        return X(ty, '({0} * {1})', [a, b], mag=max(a.mag, 1) * max(b.mag, 1), sc=a.sc + b.sc)

    def m_div(self, d):
        cat = self._cat
        a = self.expr(cat, d, exact=False)
        b = self.expr(self.r.choice(['int', cat]), d, exact=True)
        ty = promote(a.ty, b.ty)
        if cat_of(ty) != cat:
            return None
        tmpl = self.r.choice(['({0} / NULLIF({1}, 0))', '({0} / NULLIF({1}, 0))',
                              '({0} / COALESCE(NULLIF({1}, 0), 1))'])
        if cat == 'int':
            return X(ty, tmpl, [a, b], mag=a.mag)
        if cat == 'float':
            return X(ty, tmpl, [a, b], mag=HUGE)
        # a nonzero divisor of scale sb is at least 10^-sb; PostgreSQL's select_div_scale
        # gives at least 16 significant digits, more for small quotients
        return X(ty, tmpl, [a, b], mag=max(a.mag, 1) * 10 ** b.sc,
                 sc=max(a.sc, b.sc, 24 + len(str(int(b.mag))) + a.sc))

    def m_mod(self, d):
        cat = self._cat
        a = self.expr(cat, d, exact=True)
        b = self.expr(self.r.choice(['int', cat]), d, exact=True)
        ty = promote(a.ty, b.ty)
        if cat_of(ty) != cat:
            return None
        tmpl = self.r.choice(['({0} % NULLIF({1}, 0))', 'mod({0}, NULLIF({1}, 0))'])
        return X(ty, tmpl, [a, b], mag=a.mag)

    def m_neg(self, d):
        a = self.expr(self._cat, d)
        return X(a.ty, '(- {0})', [a])

    def m_abs(self, d):
        a = self.expr(self._cat, d)
        return X(a.ty, 'abs({0})', [a])

    def m_round(self, d):
        cat = self._cat
        a = self.expr(cat, d, exact=True)
        sc = 0
        if cat == 'numeric':
            k = self.r.choice([-1, 0, 1, 2, 3])
            f = self.r.choice(['round({0}, %d)' % k, 'round({0})', 'trunc({0}, %d)' % k,
                               'floor({0})', 'ceil({0})', 'ceiling({0})', 'trunc({0})', 'sign({0})'])
            if '%d)' % k in f:
                sc = max(k, 0)
        else:
            f = self.r.choice(['round({0})', 'floor({0})', 'ceil({0})', 'trunc({0})', 'sign({0})'])
        return X(a.ty, f, [a], mag=a.mag + 10, sc=sc)

    def m_length(self, d):
        s = self.expr('text', d)
        f = self.r.choice(['length({0})', 'char_length({0})', 'length({0})'])
        return X('integer', f, [s], mag=100)

    def m_position(self, d):
        s = self.expr('text', d)
        sub = self.r.choice(['a', 'b', ' ', 'ü', 'c', ',', 'ab', ''])
        return X('integer', 'position(%s in {0})' % q(sub), [s], mag=100)

    def m_to_int(self, d):
        r = self.r
        src = r.choice(['numeric', 'float', 'bool', 'int'])
        if src == 'bool':
            a = self.expr('bool', d)
            return X('integer', r.choice(['CAST({0} AS integer)', '{0}::int']), [a], mag=1)
        a = self.expr(src, d, exact=True)
        ty = r.choice(['integer', 'bigint', 'smallint'])
        if not fits(ty, a.mag + 1):
            return None
        return X(ty, r.choice(['CAST({0} AS %s)' % ty, '{0}::%s' % ty]), [a], mag=a.mag + 1)

    def m_extract_int(self, d):
        a = self.expr('ts', d)
        f = self.r.choice(['hour', 'minute', 'day', 'month', 'dow', 'year'])
        return X('integer', 'CAST(extract(%s from {0}) AS integer)' % f, [a], mag=3000)

    def m_extract(self, d):
        a = self.expr('ts', d)
        f = self.r.choice(TS_FIELDS)
        form = self.r.choice(['extract(%s from {0})', 'EXTRACT(%s FROM {0})'])
        mag = {'epoch': 2 * 10 ** 9, 'microseconds': 10 ** 8}.get(f, 100000)
        sc = {'epoch': 6, 'second': 6, 'milliseconds': 3}.get(f, 0)
        return X('numeric', form % f, [a], mag=mag, sc=sc)

    def m_to_numeric(self, d):
        r = self.r
        a = self.expr(r.choice(['int', 'numeric', 'float']), d, exact=True)
        if a.ty == 'double precision' and not a.iscol:
            return None  # float -> numeric keeps 15 significant digits: tiny values, long scales
        if r.random() < 0.5:
            return X('numeric', r.choice(['CAST({0} AS numeric)', '{0}::numeric']), [a],
                     sc=22 if a.ty == 'double precision' else None)
        p = r.randint(4, 18)
        s = r.randint(0, min(p - 1, 4))
        if a.mag + 1 >= 10 ** (p - s):
            return None
        return X('numeric', 'CAST({0} AS numeric(%d,%d))' % (p, s), [a], sc=s)

    def m_to_float(self, d):
        a = self.expr(self.r.choice(['int', 'numeric']), d)
        return X('double precision', self.r.choice(['CAST({0} AS double precision)', '{0}::float8']), [a])

    # -- generic --
    def m_case(self, d):
        cat = self._cat
        r = self.r
        kids, parts, res = [], [], []
        head = 'CASE '
        if r.random() < 0.25:
            # simple CASE: CASE x WHEN lit THEN .. END
            subj_cat = r.choice(['int', 'text', 'bool'])
            kids.append(self.expr(subj_cat, d, exact=True))
            head = 'CASE {0} '
            for _ in range(r.randint(1, 3)):
                parts.append('WHEN %s THEN {%d}' % (self.literal(subj_cat, allow_null=False).sql(), len(kids)))
                v = self.expr(cat, d)
                kids.append(v)
                res.append(v)
        else:
            for _ in range(r.randint(1, 2)):
                c = self.expr('bool', d)
                v = self.expr(cat, d)
                parts.append('WHEN {%d} THEN {%d}' % (len(kids), len(kids) + 1))
                kids += [c, v]
                res.append(v)
        if r.random() < 0.75:
            v = self.expr(cat, d)
            parts.append('ELSE {%d}' % len(kids))
            kids.append(v)
            res.append(v)
        ty = res[0].ty
        for v in res[1:]:
            if cat_of(v.ty) != cat_of(ty):
                return None
            ty = promote(ty, v.ty)
        return X(ty, head + ' '.join(parts) + ' END', kids, mag=max(v.mag for v in res))

    def m_coalesce(self, d):
        cat = self._cat
        n = self.r.randint(2, 3)
        args = [self.expr(cat, d) for _ in range(n)]
        ty = args[0].ty
        for a in args[1:]:
            ty = promote(ty, a.ty)
        return X(ty, 'COALESCE(' + ', '.join('{%d}' % i for i in range(n)) + ')', args)

    def m_nullif(self, d):
        cat = self._cat
        a = self.expr(cat, d, exact=True)
        b = self.expr(cat, d, exact=True) if self.r.random() < 0.5 else self.literal(cat, allow_null=False)
        return X(a.ty, 'NULLIF({0}, {1})', [a, b], mag=a.mag)

    def m_greatest(self, d):
        cat = self._cat
        n = self.r.randint(2, 3)
        args = [self.expr(cat, d, exact=True) for _ in range(n)]
        ty = args[0].ty
        for a in args[1:]:
            ty = promote(ty, a.ty)
        f = self.r.choice(['GREATEST', 'LEAST'])
        return X(ty, f + '(' + ', '.join('{%d}' % i for i in range(n)) + ')', args)

    # -- text --
    def m_strfunc(self, d):
        s = self.expr('text', d)
        f = self.r.choice(['lower({0})', 'upper({0})', 'trim({0})', 'btrim({0})', 'ltrim({0})',
                           'rtrim({0})', "btrim({0}, 'a ')", "trim(both 'a' from {0})",
                           "trim(leading ' ' from {0})", "ltrim({0}, 'Aa')"])
        return X('text', f, [s])

    def m_substring(self, d):
        s = self.expr('text', d)
        a = self.r.randint(-1, 4)
        n = self.r.randint(0, 4)
        f = self.r.choice(['substring({0} from %d for %d)' % (a, n), 'substring({0}, %d, %d)' % (a, n),
                           'substring({0} from %d)' % max(a, 1), 'substr({0}, %d, %d)' % (a, n)])
        return X('text', f, [s])

    def text_arg(self, d):
        """Any-typed argument whose text form is deterministic (no inexact floats)."""
        cat = self.pick_cat(['text', 'text', 'int', 'numeric', 'bool', 'ts', 'float'])
        return self.expr(cat, d, exact=True)

    def m_concat(self, d):
        n = self.r.randint(2, 3)
        args = [self.text_arg(d) for _ in range(n)]
        if self.r.random() < 0.3:
            return X('text', 'concat_ws(%s, ' % q(self.r.choice(['-', ', ', ''])) +
                     ', '.join('{%d}' % i for i in range(n)) + ')', args)
        return X('text', 'concat(' + ', '.join('{%d}' % i for i in range(n)) + ')', args)

    def m_pipes(self, d):
        a = self.expr('text', d)
        b = self.expr('text', d) if self.r.random() < 0.7 else self.text_arg(d)
        if b.ty == 'boolean':
            # weir requires the cast (docs/sql.md, deviations): PostgreSQL gives the same text
            b = X('text', 'CAST({0} AS text)', [b])
        if self.r.random() < 0.5:
            a, b = b, a
        return X('text', '({0} || {1})', [a, b])

    def m_split_part(self, d):
        s = self.expr('text', d)
        delim = self.r.choice([' ', ',', 'b', 'ab'])
        n = self.r.choice([1, 1, 2, 3])
        return X('text', 'split_part({0}, %s, %d)' % (q(delim), n), [s])

    def m_replace(self, d):
        s = self.expr('text', d)
        a = self.r.choice(['a', ' ', 'ü', 'ab', 'b'])
        b = self.r.choice(['', 'X', 'yy', 'ö'])
        return X('text', 'replace({0}, %s, %s)' % (q(a), q(b)), [s])

    def m_leftright(self, d):
        s = self.expr('text', d)
        n = self.r.randint(-2, 4)
        return X('text', '%s({0}, %d)' % (self.r.choice(['left', 'right']), n), [s])

    def m_to_text(self, d):
        a = self.text_arg(d)
        if a.ty == 'text':
            return None
        return X('text', self.r.choice(['CAST({0} AS text)', '{0}::text', 'CAST({0} AS varchar)']), [a])

    # -- bool --
    def cmp_pair(self, d):
        r = self.r
        cat = self.pick_cat(['int', 'int', 'numeric', 'float', 'text', 'text', 'ts', 'bool', 'mixed'])
        if cat == 'mixed':
            return self.num_operand(d), self.num_operand(d)
        if cat == 'bool':
            return self.expr('bool', d), self.expr('bool', d)
        a = self.expr(cat, d, exact=True)
        x = r.random()
        if x < 0.45:
            b = self.literal(cat, allow_null=False)
            if cat == 'ts' and r.random() < 0.4:
                b = X('timestamp', raw=b.raw.replace('TIMESTAMP ', ''))
        elif x < 0.5:
            b = X('text', raw='NULL')  # untyped NULL literal
        else:
            b = self.expr(cat, d, exact=True)
        return a, b

    def m_cmp(self, d):
        a, b = self.cmp_pair(d)
        op = self.r.choice(['=', '<>', '<', '<=', '>', '>=', '!='])
        if self.r.random() < 0.5:
            a, b = b, a
        return X('boolean', '({0} %s {1})' % op, [a, b], mag=0)

    def m_andor(self, d):
        n = self.r.randint(2, 3)
        op = self.r.choice([' AND ', ' OR '])
        args = [self.expr('bool', d) for _ in range(n)]
        return X('boolean', '(' + op.join('{%d}' % i for i in range(n)) + ')', args, mag=0)

    def m_not(self, d):
        return X('boolean', '(NOT {0})', [self.expr('bool', d)], mag=0)

    def m_isnull(self, d):
        cat = self.pick_cat(['int', 'numeric', 'float', 'text', 'bool', 'ts'])
        a = self.expr(cat, d)
        return X('boolean', self.r.choice(['({0} IS NULL)', '({0} IS NOT NULL)']), [a], mag=0)

    def m_in(self, d):
        r = self.r
        cat = self.pick_cat(['int', 'int', 'text', 'text', 'numeric', 'ts', 'bool'])
        a = self.expr(cat, d, exact=True)
        n = r.randint(1, 4)
        items = [self.literal(cat, allow_null=False).sql() for _ in range(n)]
        if r.random() < 0.3:
            items.insert(r.randint(0, len(items)), 'NULL')
        kids = [a]
        if r.random() < 0.2:
            kids.append(self.expr(cat, d, exact=True))
            items.append('{1}')
        neg = r.random() < 0.35
        return X('boolean', '({0} %sIN (%s))' % ('NOT ' if neg else '', ', '.join(items)), kids, mag=0)

    def m_between(self, d):
        cat = self.pick_cat(['int', 'numeric', 'float', 'text', 'ts'])
        a = self.expr(cat, d, exact=True)
        lo = self.literal(cat, allow_null=False) if self.r.random() < 0.7 else self.expr(cat, d, exact=True)
        hi = self.literal(cat, allow_null=False) if self.r.random() < 0.7 else self.expr(cat, d, exact=True)
        neg = 'NOT ' if self.r.random() < 0.3 else ''
        return X('boolean', '({0} %sBETWEEN {1} AND {2})' % neg, [a, lo, hi], mag=0)

    def like_pattern(self):
        r = self.r
        w = r.choice([t for t in TEXT_VOCAB if t])
        k = r.randint(1, max(1, len(w) - 1))
        x = r.random()
        if x < 0.25:
            p = w[:k] + '%'
        elif x < 0.45:
            p = '%' + w[-k:]
        elif x < 0.6:
            p = '%' + w[k - 1:k] + '%'
        elif x < 0.7:
            i = r.randrange(len(w))
            p = w[:i] + '_' + w[i + 1:]
        elif x < 0.78:
            p = w
        elif x < 0.84:
            p = r.choice(['%', '_', '__%', '', '%\\_%', 'x\\_y', '%\\%'])
        else:
            p = '%' + w[:k].lower() + '%'
        if r.random() < 0.3:
            p = p.swapcase()
        return p

    def m_like(self, d):
        s = self.expr('text', d)
        op = self.r.choice(['LIKE', 'ILIKE', 'NOT LIKE', 'NOT ILIKE', 'LIKE'])
        return X('boolean', '({0} %s %s)' % (op, q(self.like_pattern())), [s], mag=0)

    def m_distinct(self, d):
        a, b = self.cmp_pair(d)
        if b.raw == 'NULL' and self.r.random() < 0.5:
            b = self.literal(cat_of(a.ty) if a.ty in NUM_RANK or a.ty != 'text' else 'text', allow_null=True)
        return X('boolean', self.r.choice(['({0} IS DISTINCT FROM {1})', '({0} IS NOT DISTINCT FROM {1})']),
                 [a, b], mag=0)

    def m_booltest(self, d):
        a = self.expr('bool', d)
        t = self.r.choice(['IS TRUE', 'IS NOT TRUE', 'IS FALSE', 'IS NOT FALSE', 'IS UNKNOWN', 'IS NOT UNKNOWN'])
        return X('boolean', '({0} %s)' % t, [a], mag=0)

    # -- temporal --
    def m_date_trunc(self, d):
        a = self.expr('ts', d)
        u = self.r.choice(TS_UNITS_TRUNC)
        return X('timestamp', "date_trunc('%s', {0})" % u, [a], mag=0)

    def m_ts_interval(self, d):
        a = self.expr('ts', d)
        op = self.r.choice(['+', '-'])
        return X('timestamp', '({0} %s %s)' % (op, self.r.choice(INTERVALS)), [a], mag=0)

    def m_date_to_ts(self, d):
        a = self.expr('date', d)
        return X('timestamp', 'CAST({0} AS timestamp)', [a], mag=0)

    def m_to_date(self, d):
        a = self.expr('ts', d)
        return X('date', self.r.choice(['CAST({0} AS date)', '{0}::date']), [a], mag=0)


class AggGen(Gen):
    """Expressions above an aggregate: leaves are group keys and aggregate calls."""

    def __init__(self, r, inner, group_items, nrows, schema, allow_group=True):
        super().__init__(r, [], nrows, schema)
        self.inner = inner
        self.group_items = group_items if allow_group else []

    def leaf(self, cat, exact=False):
        r = self.r
        gs = [g for g in self.group_items if cat_of(g.ty) == cat]
        x = r.random()
        if gs and x < 0.35:
            return r.choice(gs)
        if x < 0.93:
            a = self.agg_call(cat, exact)
            if a is not None:
                return a
        if gs:
            return r.choice(gs)
        return self.literal(cat)

    def agg_call(self, cat, exact=False):
        r = self.r
        inner = self.inner
        n = self.nrows
        d = r.choice([0, 0, 1, 1, 2])
        filt = inner.expr('bool', 1, need_col=True) if r.random() < 0.08 else None

        def agg(ty, name, arg=None, distinct=False, **kw):
            kids = [arg] if arg is not None else []
            tmpl = name + ('(*)' if arg is None else '(%s{0})' % ('DISTINCT ' if distinct else ''))
            if filt is not None:
                tmpl += ' FILTER (WHERE {%d})' % len(kids)
                kids.append(filt)
            kw.setdefault('inexact', bool(arg is not None and arg.inexact))
            return X(ty, tmpl, kids, iscol=True, **kw)

        def arg(cats, exact=False):
            return inner.expr(r.choice(cats), d, exact=exact, need_col=True)

        if cat == 'int':
            x = r.random()
            if x < 0.3:
                return agg('bigint', 'COUNT', mag=n)
            if x < 0.5:
                return agg('bigint', 'COUNT', arg(['int', 'text', 'numeric', 'bool', 'ts', 'float']),
                           mag=n, inexact=False)
            if x < 0.65:
                return agg('bigint', 'COUNT', arg(['int', 'text', 'numeric', 'bool', 'ts'], True),
                           distinct=True, mag=n, inexact=False)
            a = arg(['int'])
            if x < 0.82 and a.ty in ('smallint', 'integer'):
                return agg('bigint', 'SUM', a, distinct=r.random() < 0.1, mag=n * a.mag + 1)
            return agg(a.ty, r.choice(['MIN', 'MAX']), a, mag=a.mag)
        if cat == 'numeric':
            x = r.random()
            a = arg(['int', 'numeric', 'numeric'])
            if x < 0.4:
                if a.ty in ('smallint', 'integer'):
                    return None
                return agg('numeric', 'SUM', a, mag=n * a.mag + 1)
            if x < 0.75:
                return agg('numeric', 'AVG', a, distinct=r.random() < 0.1, mag=a.mag + 1, sc=20 + a.sc)
            if a.ty != 'numeric':
                return None
            return agg('numeric', r.choice(['MIN', 'MAX']), a, mag=a.mag)
        if cat == 'float':
            a = arg(['float'])
            if r.random() < 0.5 and not exact:
                return agg('double precision', r.choice(['SUM', 'AVG']), a, mag=n * a.mag + 1,
                           inexact=True)
            return agg('double precision', r.choice(['MIN', 'MAX']), a, mag=a.mag)
        if cat in ('text', 'ts', 'date'):
            a = arg([cat])
            return agg(a.ty, r.choice(['MIN', 'MAX']), a)
        if cat == 'bool':
            a = arg(['bool'])
            return agg('boolean', r.choice(['BOOL_AND', 'BOOL_OR', 'bool_and', 'bool_or']), a)
        return None


# ----------------------------------------------------------------------------------------
# Queries.

class Rel:
    """A FROM item: source, subquery, CTE reference or ref()."""

    def __init__(self, kind, cols, key, name=None, query=None, alias=None):
        self.kind = kind      # 'source' | 'sub' | 'cte' | 'ref'
        self.cols = cols      # list of Col
        self.key = key        # list of column names forming a unique key, or None
        self.name = name      # cte / model name
        self.query = query    # 'sub': the Query
        self.alias = alias

    def sql(self, pg):
        if self.kind == 'source':
            s = PG_TABLE if pg else "source('%s')" % SOURCE_NAME
        elif self.kind == 'sub':
            s = '(' + self.query.sql(pg) + ')'
        elif self.kind == 'cte':
            s = self.name
        else:
            s = self.name if pg else "ref('%s')" % self.name
        if self.alias:
            s += ' AS ' + self.alias
        return s


class Select:
    def __init__(self):
        self.distinct = False
        self.items = []     # list of (X, alias)
        self.rel = None
        self.where = None
        self.group = None   # None (no aggregate) | list of X (may be empty: global aggregate)
        self.having = None

    def sql(self, pg):
        s = 'SELECT ' + ('DISTINCT ' if self.distinct else '')
        s += ', '.join('%s AS %s' % (x.sql(), a) for x, a in self.items)
        s += ' FROM ' + self.rel.sql(pg)
        if self.where is not None:
            s += ' WHERE ' + self.where.sql()
        if self.group:
            s += ' GROUP BY ' + ', '.join(g.sql() for g in self.group)
        if self.having is not None:
            s += ' HAVING ' + self.having.sql()
        return s


class Query:
    def __init__(self, branches, ctes=None):
        self.branches = branches   # 1 Select, or 2 for UNION ALL
        self.ctes = ctes or []     # [(name, Query)] rendered as WITH at this level
        self.out = []              # list of Col
        self.key = None

    def body_sql(self, pg):
        return ' UNION ALL '.join(b.sql(pg) for b in self.branches)

    def sql(self, pg):
        s = ''
        if self.ctes:
            s = 'WITH ' + ', '.join('%s AS (%s)' % (n, cq.sql(pg)) for n, cq in self.ctes) + ' '
        return s + self.body_sql(pg)


def infer_key(models, schema):
    """The unique key weir should know for the final model's output (list of output
    column names; [] for a global aggregate: at most one row), or None. Derived from the
    query's structure, so it stays right when the shrinker edits the query."""
    named = {}

    def collect(q):
        for n, cq in q.ctes:
            named[n] = cq
            collect(cq)
        for b in q.branches:
            if b.rel.kind == 'sub':
                collect(b.rel.query)

    for name, mq, _ in models:
        named[name] = mq
        collect(mq)

    def rel_key(rel):
        if rel.kind == 'source':
            return ['id'] if schema.updating else None
        q = rel.query if rel.kind == 'sub' else named.get(rel.name)
        return key_of(q) if q is not None else None

    def key_of(q):
        if len(q.branches) != 1:
            return None
        sel = q.branches[0]
        if sel.group is not None:
            if not sel.group:
                return []
            out = []
            for g in sel.group:
                hit = [a for x, a in sel.items if x.sql() == g.sql()]
                if not hit:
                    return None
                out.append(hit[0])
            return out
        if sel.distinct:
            return [a for _, a in sel.items]
        k = rel_key(sel.rel)
        if k is None:
            return None
        out = []
        for col in k:
            hit = [a for x, a in sel.items if x.iscol and x.sql().split('.')[-1] == col]
            if not hit:
                return None
            out.append(hit[0])
        return out

    return key_of(models[-1][1])


# The query family of a seed: seed % 20 indexes this cycle, so every contiguous range of
# seeds covers the families in these proportions (classic: the single-source queries of
# QueryGen; the others are in families.py).
FAMILY_CYCLE = ['classic', 'join', 'window', 'classic', 'topn', 'subquery', 'classic', 'join',
                'setop', 'window', 'classic', 'running', 'join', 'topn', 'interval', 'classic',
                'subquery', 'window', 'setop', 'join']
FAMILIES = ['classic', 'join', 'subquery', 'window', 'interval', 'topn', 'setop', 'running', 'sqlext']
# Seeds 20001-29999 belong to `sqlext` (families_sql.py: comma joins of 3-8 tables,
# correlated subqueries, ...), outside the cycle so the cycle's seeds keep their queries.
SQLEXT_SEEDS = range(20001, 30000)


def family_of(seed):
    if seed in SQLEXT_SEEDS:
        return 'sqlext'
    return FAMILY_CYCLE[seed % len(FAMILY_CYCLE)]


class Case:
    """Everything one seed produces. `variant` re-rolls only the query (the schema and
    the data stay): a query whose PostgreSQL result is empty (or huge) tests little, so
    the runner tries up to MAX_VARIANTS queries per seed before it accepts one."""

    def __init__(self, seed, nrows, variant=0):
        self.seed = seed
        self.variant = variant
        self.nrows = nrows
        self.family = family_of(seed)
        self.label = self.family   # family and shape, for the coverage summary
        self.models = []           # [(name, Query, materialized)] upstream first, final last
        r = random.Random(seed)
        qr = r if variant == 0 else random.Random('%d/query/%d' % (seed, variant))
        if self.family == 'classic':
            self.updating = (seed % 2 == 1)
            self.schema = gen_schema(r, self.updating)
            self.sources = [SourceSpec(SOURCE_NAME, self.schema, 'data/events.jsonl', PG_TABLE)]
            self.events = [(0, e) for e in gen_events(r, self.schema, nrows)]
            QueryGen(qr, self).generate()
            self.label = 'classic:' + ('updating' if self.updating else 'insert-only')
        else:
            import families
            families.build(self, r, qr)


MAX_VARIANTS = 3
MAX_RESULT_ROWS = 3000  # a bigger PostgreSQL result re-rolls the query


class QueryGen:
    """Random queries over the case's source; upstream models go to case.models.
    Generation-time keys (Query.key) only steer the generator (keep key columns in
    projections); the harness derives the output key with infer_key."""

    def __init__(self, r, case):
        self.r = r
        self.case = case
        self.ncte = 0
        self.nsub = 0
        self.nmodel = 0

    def base_rel(self):
        s = self.case.schema
        cols = [Col(c['name'], c['ty'], c['mag'], sc=c.get('sc', 0)) for c in s.cols]
        alias = 'e' if self.r.random() < 0.15 else None
        return Rel('source', cols, ['id'] if s.updating else None, alias=alias)

    def relation(self, depth, ctes):
        """A FROM item for a query at `depth` (0 = a model's top level)."""
        r = self.r
        if depth >= 2 or r.random() < 0.55:
            return self.base_rel()
        kind = r.choice(['sub', 'cte', 'ref'])
        if kind == 'ref' and self.nmodel < 3:
            # an upstream model (which may itself read another model: chains of 3)
            own = []
            inner = self.query(depth + 1, own)
            inner.ctes = own
            self.nmodel += 1
            name = 'm%d' % self.nmodel
            mat = r.choice(['view', 'view', 'ephemeral', None])
            self.case.models.append((name, inner, mat))
            return Rel('ref', self.cols_of(inner), inner.key, name=name)
        inner = self.query(depth + 1, ctes)
        if kind in ('cte', 'ref'):
            self.ncte += 1
            name = 'q%d' % self.ncte
            ctes.append((name, inner))
            return Rel('cte', self.cols_of(inner), inner.key, name=name,
                       alias=('w%d' % self.ncte) if r.random() < 0.2 else None)
        self.nsub += 1
        return Rel('sub', self.cols_of(inner), inner.key, query=inner, alias='sq%d' % self.nsub)

    def cols_of(self, q):
        return [Col(c.name, c.ty, c.mag, c.inexact, c.sc) for c in q.out]

    def generate(self):
        ctes = []
        q = self.query(0, ctes)
        q.ctes = ctes
        self.case.models.append((FINAL_MODEL, q, 'retract'))

    def query(self, depth, ctes):
        """A query at `depth` (0: a model's top level); the CTEs it needs are appended
        to `ctes` (rendered as one WITH at the model's top)."""
        r = self.r
        if r.random() < 0.12:
            return self.union_query(depth, ctes)
        rel = self.relation(depth, ctes)
        sel = Select()
        sel.rel = rel
        q = Query([sel])
        y = r.random()
        if y < 0.4:
            self.agg_select(sel, q, grouped=True)
        elif y < 0.5:
            self.agg_select(sel, q, grouped=False)
        else:
            self.plain_select(sel, q, distinct=(r.random() < 0.2))
        return q

    def row_gen(self, rel):
        qual = rel.alias if rel.alias else None
        return Gen(self.r, rel.cols, self.case.nrows, self.case.schema, qual=qual)

    def maybe_where(self, sel, g, p=0.75):
        if self.r.random() < p:
            sel.where = g.expr('bool', self.r.randint(1, 3), need_col=True)

    def plain_select(self, sel, q, distinct):
        r = self.r
        g = self.row_gen(sel.rel)
        self.maybe_where(sel, g)
        n = r.randint(1, 5)
        items = []
        if sel.rel.key is not None and not distinct and r.random() < 0.7:
            # keep the input's key so updates stay keyed
            keycols = [c for c in sel.rel.cols if c.name in sel.rel.key]
            for c in keycols:
                items.append(c.x())
        for _ in range(n):
            if r.random() < 0.3 and sel.rel.cols:
                c = r.choice(sel.rel.cols)
                if distinct and c.inexact:
                    continue
                items.append(c.x())
            else:
                cat = g.pick_cat(['int', 'int', 'numeric', 'float', 'text', 'text', 'bool', 'ts', 'date'])
                items.append(g.expr(cat, r.randint(0, 3), exact=distinct, need_col=True))
        if not items:
            items.append(g.expr('int', 1, exact=True))
        r.shuffle(items)
        sel.items = [(x, 'c%d' % (i + 1)) for i, x in enumerate(items)]
        sel.distinct = distinct
        q.out = [Col(a, x.ty, x.mag, x.inexact, x.sc) for x, a in sel.items]
        if distinct:
            q.key = [a for _, a in sel.items]
        elif sel.rel.key is not None:
            names = {}
            for x, a in sel.items:
                if x.raw is not None:
                    names.setdefault(x.raw.split('.')[-1], a)
            if all(k in names for k in sel.rel.key):
                q.key = [names[k] for k in sel.rel.key]

    def agg_select(self, sel, q, grouped):
        r = self.r
        g = self.row_gen(sel.rel)
        self.maybe_where(sel, g, 0.6)
        group = []
        if grouped:
            for _ in range(r.choice([1, 1, 2])):
                exact_cols = [c for c in sel.rel.cols if not c.inexact]
                if r.random() < 0.6 and exact_cols:
                    gx = r.choice(exact_cols).x()
                else:
                    gx = g.expr(g.pick_cat(['int', 'text', 'ts', 'bool', 'numeric', 'date']),
                                r.randint(1, 2), exact=True)
                    if not gx.has_col():
                        continue  # constant keys: legal but dull, and GROUP BY 3 is an ordinal
                if any(gx.sql() == o.sql() for o in group):
                    continue
                group.append(gx)
            if not group:
                exact_cols = [c for c in sel.rel.cols if not c.inexact]
                if exact_cols:
                    group.append(r.choice(exact_cols).x())
                else:
                    grouped = False
        sel.group = group
        ag = AggGen(r, g, group, self.case.nrows, self.case.schema)
        items = []
        keyitems = []
        for gx in group:
            if r.random() < 0.92:
                items.append(gx)
                keyitems.append(gx)
        for _ in range(r.randint(1, 4)):
            cat = g.pick_cat(['int', 'int', 'numeric', 'numeric', 'float', 'text', 'bool', 'ts'])
            items.append(ag.expr(cat, r.choice([0, 0, 1, 2]), need_col=True))
        if r.random() < 0.5:
            order = items[:]
            r.shuffle(order)
            items = order
        sel.items = [(x, 'c%d' % (i + 1)) for i, x in enumerate(items)]
        if r.random() < (0.35 if grouped else 0.1):
            sel.having = ag.expr('bool', r.randint(1, 2), need_col=True)
        q.out = [Col(a, x.ty, x.mag, x.inexact, x.sc) for x, a in sel.items]
        if not grouped:
            q.key = []
        elif len(keyitems) == len(group):
            q.key = []
            for k in keyitems:
                for x, a in sel.items:
                    if x is k:
                        q.key.append(a)
                        break

    def union_query(self, depth, ctes):
        r = self.r
        rel = self.relation(depth, ctes) if depth < 2 else self.base_rel()
        if rel.kind == 'sub':
            # both branches read the same relation: name it once as a CTE
            self.ncte += 1
            name = 'q%d' % self.ncte
            ctes.append((name, rel.query))
            rel = Rel('cte', rel.cols, rel.key, name=name)
        s1 = Select()
        s1.rel = rel
        q = Query([s1])
        self.plain_select(s1, q, distinct=False)
        s2 = Select()
        s2.rel = copy.copy(rel)
        g = self.row_gen(rel)
        s2.where = g.expr('bool', r.randint(1, 3), need_col=True)
        if s1.where is None:
            s1.where = g.expr('bool', r.randint(1, 2), need_col=True)
        items2 = []
        for x, a in s1.items:
            y = x
            if r.random() < 0.5:
                for _ in range(10):
                    cand = g.expr(cat_of(x.ty), r.randint(0, 2))
                    if cand.ty == x.ty:
                        y = cand
                        break
            items2.append((y, a))
        s2.items = items2
        q.branches.append(s2)
        q.out = [Col(a, x.ty, max(x.mag, y.mag), x.inexact or y.inexact, max(x.sc, y.sc))
                 for (x, a), (y, _) in zip(s1.items, s2.items)]
        q.key = None
        return q


# ----------------------------------------------------------------------------------------
# Value normalisation and comparison.

TS_RE = re.compile(r'^(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(\.\d+)?(Z|[+-]\d\d(:?\d\d)?)?$')
INT_PG = ('smallint', 'integer', 'bigint', 'numeric')
FLOAT_PG = ('double precision', 'real')


class Bad:
    """A value that could not be read as its column's type: never equal to anything."""

    def __init__(self, v):
        self.v = v

    def __repr__(self):
        return '<bad %r>' % (self.v,)


def canon_decimal(d):
    if not d.is_finite():
        return str(d)
    d = d.normalize(EXACT)
    return format(d, 'f') if d != 0 else '0'


def norm_float(x):
    if x != x:
        return 'NaN'
    if x in (float('inf'), float('-inf')):
        return 'Infinity' if x > 0 else '-Infinity'
    return x + 0.0  # -0.0 -> 0.0


def norm_ts(s):
    bc = s.endswith(' BC')
    m = TS_RE.match(s[:-3] if bc else s)
    if not m:
        return Bad(s)
    frac = m.group(7) or ''
    micro = int((frac[1:] + '000000')[:6]) if frac else 0
    if len(frac) > 7:
        return Bad(s)
    return '%s-%s-%s %s:%s:%s.%06d%s' % (m.group(1), m.group(2), m.group(3), m.group(4),
                                         m.group(5), m.group(6), micro, ' BC' if bc else '')


def pg_kind(pgtype):
    t = pgtype.split('(')[0].strip()
    if t in INT_PG:
        return 'num'
    if t in FLOAT_PG:
        return 'float'
    if t == 'boolean':
        return 'bool'
    if t.startswith('timestamp'):
        return 'ts'
    if t == 'date':
        return 'date'
    return 'text'


def norm_pg(kind, v):
    """Normalise PostgreSQL's CSV text (None = NULL)."""
    if v is None:
        return None
    if kind == 'num':
        return canon_decimal(Decimal(v))
    if kind == 'float':
        return norm_float(float(v))
    if kind == 'bool':
        return v == 't'
    if kind == 'ts':
        return norm_ts(v)
    return v


def norm_weir(kind, v):
    """Normalise a JSON value from weir's changelog (numbers arrive as Decimal)."""
    if v is None:
        return None
    try:
        if kind == 'num':
            if isinstance(v, bool) or not isinstance(v, (Decimal, int)):
                return Bad(v)
            return canon_decimal(Decimal(v))
        if kind == 'float':
            if isinstance(v, str) and v in ('NaN', 'Infinity', '-Infinity'):
                return norm_float(float(v))
            if isinstance(v, bool) or not isinstance(v, (Decimal, int)):
                return Bad(v)
            return norm_float(float(v))
        if kind == 'bool':
            return v if isinstance(v, bool) else Bad(v)
        if kind == 'ts':
            return norm_ts(v) if isinstance(v, str) else Bad(v)
        return v if isinstance(v, str) else Bad(v)
    except (ValueError, decimal.InvalidOperation):
        return Bad(v)


def floats_close(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))
    return a == b


def row_bucket(row):
    return tuple('~float~' if isinstance(v, float) else (repr(v) if isinstance(v, Bad) else v)
                 for v in row)


def float_distance(a, b):
    return sum(abs(x - y) for x, y in zip(a, b) if isinstance(x, float) and isinstance(y, float))


def multiset_diff(a_rows, b_rows):
    """Rows of a not matched in b and rows of b not matched in a (floats with a
    relative tolerance of 1e-9). Identical rows pair first, then each row with the
    closest candidate: values nearer to each other than the tolerance must not steal
    each other's partners (-3999999998.0 pairs with -3999999998.0, not with
    -3999999995.0)."""
    buckets = {}
    for row in b_rows:
        buckets.setdefault(row_bucket(row), []).append(row)
    rest = []
    for row in a_rows:
        cands = buckets.get(row_bucket(row))
        if cands and row in cands:
            cands.remove(row)
        else:
            rest.append(row)
    only_a = []
    for row in rest:
        cands = buckets.get(row_bucket(row)) or []
        close = [i for i, c in enumerate(cands) if all(floats_close(x, y) for x, y in zip(row, c))]
        if not close:
            only_a.append(row)
            continue
        cands.pop(min(close, key=lambda i: float_distance(row, cands[i])))
    only_b = [row for rows in buckets.values() for row in rows]
    return only_a, only_b


def show_value(v):
    if v is None:
        return 'NULL'
    if isinstance(v, bool):
        return 'true' if v else 'false'
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, Bad):
        return repr(v)
    return json.dumps(v, ensure_ascii=False) if not re.fullmatch(r'-?[0-9.]+', v) else v


def show_row(names, row):
    return '{' + ', '.join('%s: %s' % (n, show_value(v)) for n, v in zip(names, row)) + '}'


def sort_key(row):
    return tuple((0, '') if v is None else (1, repr(v) if not isinstance(v, str) else v) for v in row)


# ----------------------------------------------------------------------------------------
# Running one case.

class Outcome:
    def __init__(self, status, reason='', detail='', nrows=None):
        self.status = status   # 'pass' | 'fail' | 'skip'
        self.nrows = nrows     # rows of the PostgreSQL result (passes)
        self.reason = reason   # short, for skips and failure summaries
        self.detail = detail   # full report for failures


def weir_cmd():
    w = os.environ.get('WEIR') or 'build/weir'
    return shlex.split(w)


def psql_binary():
    """The real psql: Debian's /usr/bin/psql is a Perl wrapper that costs ~70ms a call."""
    found = sorted(glob.glob('/usr/lib/postgresql/*/bin/psql'),
                   key=lambda p: [int(x) if x.isdigit() else 0 for x in p.split('/')[4].split('.')])
    return found[-1] if found else 'psql'


PSQL = psql_binary()


def pg_env():
    env = dict(os.environ)
    env['PGCLIENTENCODING'] = 'UTF8'
    env.setdefault('PGGSSENCMODE', 'disable')
    env.setdefault('PGSSLMODE', 'disable')
    return env


def psql(args, input_text=None, timeout=120):
    env = pg_env()
    cmd = [PSQL, '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', PG_DB] + args
    return subprocess.run(cmd, input=input_text, capture_output=True, text=True,
                          encoding='utf-8', env=env, timeout=timeout)


def ensure_database():
    env = pg_env()
    base = [PSQL, '-X', '-q', '-At', '-d', 'postgres']
    p = subprocess.run(base + ['-c', "SELECT 1 FROM pg_database WHERE datname = '%s'" % PG_DB],
                       capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise HarnessError('cannot reach PostgreSQL (set PGHOST/PGPORT/PGUSER, e.g. '
                           'eval "$(scripts/pg-start)"):\n' + p.stderr)
    if p.stdout.strip() == '1':
        return
    # Byte-order collation (as weir compares text), Unicode-aware case mapping.
    for ctype in ('C.UTF-8', 'C.utf8', 'en_US.UTF-8', None):
        sql = "CREATE DATABASE %s TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C'" % PG_DB
        if ctype:
            sql += " LC_CTYPE '%s'" % ctype
        p = subprocess.run(base + ['-c', sql], capture_output=True, text=True, env=env)
        if p.returncode == 0 or 'already exists' in p.stderr:
            return
    raise HarnessError('cannot create database %s: %s' % (PG_DB, p.stderr))


def parse_csv_quoted(text):
    """COPY ... CSV with FORCE_QUOTE * and NULL '\\N': quoted fields are values, a bare
    \\N is NULL. Returns a list of rows (lists of str|None)."""
    rows = []
    row = []
    i = 0
    n = len(text)
    field_start = True
    while i < n:
        ch = text[i]
        if ch == '"':
            i += 1
            buf = []
            while True:
                j = text.index('"', i)
                buf.append(text[i:j])
                if j + 1 < n and text[j + 1] == '"':
                    buf.append('"')
                    i = j + 2
                    continue
                i = j + 1
                break
            row.append(''.join(buf))
            field_start = False
        elif ch == ',':
            if field_start:
                row.append(None)
            i += 1
            field_start = True
        elif ch == '\n':
            if field_start and row:
                row.append(None)
            rows.append(row)
            row = []
            field_start = True
            i += 1
        else:
            j = i
            while j < n and text[j] not in ',\n':
                j += 1
            tok = text[i:j]
            row.append(None if tok == '\\N' else tok)
            field_start = False
            i = j
    if row:
        rows.append(row)
    return rows


MARK_RE = re.compile(r'\u00ab(src|srcd|ref):([^\u00bb]+)\u00bb')


def render_marks(sql, pg):
    """The generators of families.py name relations with markers: <<src:t.a>> is
    source('t.a') for weir and the table t_a for PostgreSQL; <<srcd:t.a>> the same with
    weir's default alias made explicit for PostgreSQL (t_a AS a); <<ref:m1>> is
    ref('m1') or the view m1 (the markers are written with guillemets)."""
    def sub(m):
        kind, name = m.group(1), m.group(2)
        if kind == 'ref':
            return name if pg else "ref('%s')" % name
        short = name.split('.')[-1]
        if not pg:
            return "source('%s')" % name
        return 't_' + short if kind == 'src' else 't_%s AS %s' % (short, short)
    return MARK_RE.sub(sub, sql)


def model_sql(mq, pg):
    return render_marks(mq.sql(pg), pg)


def json_documents_exact(text):
    return json_documents(text, json.JSONDecoder(parse_float=Decimal, parse_int=Decimal))


def json_documents(text, dec=None):
    """The JSON documents in text, one after another."""
    dec = dec or json.JSONDecoder()
    out = []
    i = 0
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return out
        doc, i = dec.raw_decode(text, i)
        out.append(doc)


def fmt_duration(us):
    if not us:
        return '0s'
    if us % 1000000 == 0:
        return '%ds' % (us // 1000000)
    if us % 1000 == 0:
        return '%dms' % (us // 1000)
    return '%dus' % us


def used_sources(case, models):
    """Indexes of the case's sources that some model reads."""
    text = ' '.join(model_sql(mq, False) for _, mq, _ in models)
    return [i for i, s in enumerate(case.sources) if "source('%s')" % s.name in text]


class Runner:
    def __init__(self, args):
        self.args = args

    # -- project --
    def write_project(self, case, events, models, d):
        for sub in ('sources', 'models', 'data'):
            os.makedirs(os.path.join(d, sub), exist_ok=True)
        with open(os.path.join(d, 'weir.yml'), 'w') as f:
            f.write('name: difftest\ndefault_target: dev\ntargets:\n'
                    '  dev: {runtime: native, state_dir: .weir/dev}\n')
        src = ['sources:']
        for s in case.sources:
            src += ['  %s:' % s.name, '    connector: file', '    path: %s' % s.file,
                    '    format: %s' % ('changelog-json' if s.updating else 'json'),
                    '    columns:']
            for c in s.cols:
                src.append('      %s: %s' % (c['name'], c['decl']))
            if s.updating:
                src.append('    primary_key: [id]')
            if s.et:
                src.append('    event_time: %s' % s.et)
                src.append('    watermark_delay: %s' % fmt_duration(s.delay_us))
        with open(os.path.join(d, 'sources', 't.yml'), 'w') as f:
            f.write('\n'.join(src) + '\n')
        ops, finals = derive_ops_multi(case.sources, events)
        for si, s in enumerate(case.sources):
            with open(os.path.join(d, s.file), 'w', encoding='utf-8') as f:
                f.write(encode_events(case.seed, s.schema, [(op, row) for i, op, row in ops if i == si], si))
        cfg = ['models:']
        for name, mq, mat in models:
            with open(os.path.join(d, 'models', name + '.sql'), 'w', encoding='utf-8') as f:
                f.write('-- difftest seed %d\n%s\n' % (case.seed, model_sql(mq, False)))
            if name == FINAL_MODEL:
                cfg += ['  %s:' % name, '    materialized: retract',
                        '    sink: {connector: file, path: out/result.jsonl, format: changelog-json}']
            elif mat:
                cfg += ['  %s:' % name, '    materialized: %s' % mat]
        with open(os.path.join(d, 'models', 'schema.yml'), 'w') as f:
            f.write('\n'.join(cfg) + '\n')
        return ops, finals

    # -- PostgreSQL --
    def pg_script(self, case, finals, models, marks=None, mode=None):
        """marks (late_marks) add a column __wm to every table: the watermark each row
        is judged against in `mode` (run or test); lateness cases filter on it."""
        lines = ['SET client_min_messages = warning;']
        for si, (s, final) in enumerate(zip(case.sources, finals)):
            extra = ', __wm timestamp' if marks else ''
            lines.append('CREATE TEMP TABLE %s (%s%s);' % (s.table, ', '.join(
                '%s %s' % (c['name'], c['decl']) for c in s.cols), extra))
            for i in range(0, len(final), 200):
                chunk = final[i:i + 200]
                vals = []
                for j, row in enumerate(chunk):
                    v = [pg_literal(c, row.get(c['name'])) for c in s.cols]
                    if marks:
                        wm = marks[si][i + j][0 if mode == 'run' else 1]
                        v.append('NULL' if wm is None else q(fmt_ts(us_ts(wm))))
                    vals.append('(' + ', '.join(v) + ')')
                lines.append('INSERT INTO %s VALUES %s;' % (s.table, ', '.join(vals)))
        lines.append('\\echo @@LOADED')
        for name, mq, _ in models:
            lines.append('CREATE TEMP VIEW %s AS %s;' % (name, model_sql(mq, True)))
        lines.append('\\echo @@TYPES')
        lines.append("COPY (SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute "
                     "WHERE attrelid = '%s'::regclass AND attnum > 0 AND NOT attisdropped "
                     "ORDER BY attnum) TO STDOUT WITH (FORMAT csv);" % FINAL_MODEL)
        lines.append('\\echo @@ROWS')
        lines.append("COPY (SELECT * FROM %s) TO STDOUT WITH (FORMAT csv, NULL '\\N', FORCE_QUOTE *);"
                     % FINAL_MODEL)
        return '\n'.join(lines) + '\n'

    def pg_count(self, case, finals, models, marks, mode, sql):
        """The single number `sql` gives over the case's tables (lateness cases)."""
        script = self.pg_script(case, finals, models, marks, mode)
        script = script[:script.index('\\echo @@TYPES')] + '\\echo @@COUNT\n' + \
            'COPY (%s) TO STDOUT;\n' % sql
        p = psql(['-f', '-'], script)
        if p.returncode != 0:
            raise HarnessError('the late-row count failed in PostgreSQL:\n%s\n%s' % (sql, p.stderr))
        return int(p.stdout[p.stdout.index('@@COUNT\n') + 8:].strip())

    def run_pg(self, case, finals, models, marks=None, mode=None):
        """-> (names, kinds, pgtypes, rows) or raises SkipCase / HarnessError."""
        p = psql(['-f', '-'], self.pg_script(case, finals, models, marks, mode))
        out = p.stdout
        if p.returncode != 0:
            err = p.stderr.strip()
            if '@@LOADED' not in out:
                raise HarnessError('loading the input into PostgreSQL failed:\n' + err)
            m = re.search(r'ERROR:\s*(.*)', err)
            raise SkipCase('postgres rejected the query: ' + (m.group(1) if m else err)[:160])
        t_at = out.index('@@TYPES\n') + len('@@TYPES\n')
        r_at = out.index('@@ROWS\n')
        types = parse_csv_quoted(out[t_at:r_at])
        names = [t[0] for t in types]
        pgtypes = [t[1] for t in types]
        kinds = [pg_kind(t) for t in pgtypes]
        raw = parse_csv_quoted(out[r_at + len('@@ROWS\n'):])
        rows = [tuple(norm_pg(k, v) for k, v in zip(kinds, rr)) for rr in raw]
        return names, kinds, pgtypes, rows, raw

    # -- weir --
    def weir(self, d, *args):
        """Runs weir; returns (CompletedProcess or None on timeout, log text)."""
        cmd = weir_cmd() + ['--project-dir', d] + list(args)
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, encoding='utf-8',
                               errors='replace', timeout=WEIR_TIMEOUT)
        except subprocess.TimeoutExpired:
            return None, 'weir %s did not finish within %ds' % (' '.join(args), WEIR_TIMEOUT)
        except OSError as e:
            raise HarnessError('cannot run weir (%s): %s (set WEIR)' % (e, ' '.join(weir_cmd())))
        log = 'weir %s: exit %d\n--- stdout\n%s\n--- stderr\n%s' % (
            ' '.join(args), p.returncode, p.stdout[-4000:], p.stderr[-4000:])
        return p, log

    def weir_failed(self, d, what, p, log):
        """weir exited unexpectedly: a skip when weir says the query is not supported
        yet, otherwise a failure. Returns (reason, log) or raises SkipCase."""
        if p is None:
            return log, log
        c, clog = self.weir(d, 'check')
        both = (c.stdout + c.stderr if c else '') + p.stdout + p.stderr
        if 'not supported' in both:
            m = re.search(r'[^\n]*not supported[^\n]*', both)
            raise SkipCase('weir: ' + re.sub(r'^.*?(error|warning)[^:]*:\s*', '', m.group(0))[:160])
        if c is not None and c.returncode != 0:
            return 'weir check rejected a query PostgreSQL accepts', log + '\n' + clog
        if p.returncode < 0 or 'Sanitizer' in p.stderr or 'runtime error:' in p.stderr:
            return 'weir %s crashed (exit %d)' % (what, p.returncode), log
        return 'weir %s failed (exit %d)' % (what, p.returncode), log

    def replay(self, records, names, kinds, key):
        """Applies a changelog (records: (label, obj)) to an empty multiset of rows.
        insert adds a row, delete removes one equal row, update (keyed outputs only)
        replaces the row with the same key. -> (rows, problems)."""
        problems = []
        rows = Counter()
        idx = {n: i for i, n in enumerate(names)}
        keyidx = [idx[k] for k in key] if key is not None and all(k in idx for k in key) else None
        for label, obj in records:
            if not isinstance(obj, dict):
                problems.append('%s: not a JSON object: %s' % (label, str(obj)[:200]))
                continue
            obj = dict(obj)
            op = obj.pop('op', None)
            extra = [k for k in obj if k not in idx]
            if extra:
                problems.append('%s: unexpected columns %s' % (label, extra))
            row = tuple(norm_weir(k, obj.get(n)) for n, k in zip(names, kinds))
            row = tuple(repr(v) if isinstance(v, Bad) else v for v in row)
            shown = json.dumps(obj, default=str, ensure_ascii=False)[:300]
            if op == 'insert':
                rows[row] += 1
            elif op == 'delete':
                if rows[row] > 0:
                    rows[row] -= 1
                else:
                    problems.append('%s: delete of a row that is not in the output: %s' % (label, shown))
            elif op == 'update':
                if keyidx is None:
                    problems.append('%s: update in an output without a key known to the harness: %s'
                                    % (label, shown))
                    rows[row] += 1
                    continue
                kv = tuple(row[i] for i in keyidx)
                old = [r0 for r0, cnt in rows.items() if cnt > 0 and tuple(r0[i] for i in keyidx) == kv]
                if len(old) != 1 or rows[old[0]] != 1:
                    problems.append('%s: update of key %s, which has %d rows in the output: %s'
                                    % (label, kv, sum(rows[o] for o in old), shown))
                for o in old[:1]:
                    rows[o] -= 1
                rows[row] += 1
            else:
                problems.append('%s: bad op %r' % (label, op))
        out = []
        for row, cnt in rows.items():
            out += [row] * cnt
        return out, problems

    @staticmethod
    def insert_only_problems(records, where):
        """weir's explain says the output is insert_only: its changelog must not delete
        or update."""
        bad = [(label, obj) for label, obj in records if isinstance(obj, dict) and obj.get('op') != 'insert']
        if not bad:
            return []
        return ['%s: weir explain says the output is insert_only, but the changelog has %d '
                'other changes (first: %s %s)' % (where, len(bad), bad[0][0],
                                                  json.dumps(bad[0][1], default=str)[:200])]

    def via_run(self, d, names, kinds, key, insert_only=False, expect_dead=None):
        """`weir run`: the file sink's changelog. -> (rows, problems, None, log) or
        (None, None, failure reason, log). expect_dead: the number of late rows the
        run must dead-letter (lateness cases), else none."""
        workers = getattr(self.args, 'workers', None)
        p, log = self.weir(d, 'run', '--format', 'json',
                           *(['--workers', str(workers)] if workers else []),
                           *shlex.split(os.environ.get('DIFFTEST_RUN_ARGS', '')))
        if p is None or p.returncode != 0:
            reason, log = self.weir_failed(d, 'run', p, log)
            return None, None, reason, log
        path = os.path.join(d, 'out', 'result.jsonl')
        records = []
        problems = []
        # the summary counts dead letters (late rows included): PostgreSQL took every row,
        # and the generator keeps event times within the watermark delay
        try:
            # stdout holds the warnings of the check (a JSON array), then the summary
            summary = json_documents(p.stdout)[-1]
            RUN_REPLICAS.append(summary.get('replicas', 1))
            ndead = summary.get('dead_letters', 0)
            if expect_dead is not None:
                if ndead != expect_dead:
                    problems.append('weir run dead-lettered %d rows; %d rows arrived after their '
                                    'window closed (late)' % (ndead, expect_dead))
            elif ndead:
                where = ['%s %s: %d' % (kind, x.get('name'), x.get('dead_letters'))
                         for kind in ('sources', 'models') for x in summary.get(kind, [])
                         if x.get('dead_letters')]
                problems.append('weir run dead-lettered %d rows (%s)' % (ndead, ', '.join(where)))
        except (ValueError, AttributeError, IndexError):
            problems.append('weir run --format json: the summary is not JSON: %s' % p.stdout[:300])
        if os.path.exists(path):
            with open(path, encoding='utf-8', errors='replace') as f:
                for ln, line in enumerate(f.read().splitlines(), 1):
                    if not line.strip():
                        continue
                    try:
                        records.append(('out/result.jsonl:%d' % ln,
                                        json.loads(line, parse_float=Decimal, parse_int=Decimal)))
                    except ValueError as e:
                        problems.append('out/result.jsonl:%d: not JSON (%s): %s' % (ln, e, line[:200]))
        rows, more = self.replay(records, names, kinds, key)
        problems += more
        if insert_only:
            problems += self.insert_only_problems(records, 'weir run')
        for root, _dirs, files in os.walk(d) if expect_dead is None else ():
            for fn in files:
                fp = os.path.join(root, fn)
                if 'dead' in os.path.relpath(fp, d).lower() and os.path.getsize(fp) > 0:
                    with open(fp, encoding='utf-8', errors='replace') as f:
                        head = f.read(1500)
                    problems.append('weir run dead-lettered input that PostgreSQL accepts (%s):\n%s'
                                    % (os.path.relpath(fp, d), head))
        return rows, problems, None, log

    def via_test(self, d, names, kinds, key, insert_only=False, expect_dead=None):
        """`weir test` on the simulator, one row per step: tests/difftest.yml holds the
        events and PostgreSQL's rows as expect_final; the JSON report gives weir's own
        final rows and changelog. The changelog must replay to the final rows. Odd seeds
        run with --checkpoint-each-step: every step's state goes through a checkpoint
        and a new pipeline, which must not change a thing. (Only short streams: a full
        checkpoint per step is quadratic in the stream's length.)"""
        extra = ['--checkpoint-each-step'] if self.case_seed % 2 and self.case_rows <= 1000 else []
        p, log = self.weir(d, 'test', '--format', 'json', *extra)
        if p is None or p.returncode not in (0, 1):
            reason, log = self.weir_failed(d, 'test', p, log)
            return None, None, reason, log
        try:
            doc = [x for x in json_documents_exact(p.stdout) if isinstance(x, dict)][-1]
            t = doc['tests'][0]
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            reason, log = self.weir_failed(d, 'test', p, log)
            return None, None, reason, log
        if t.get('status') not in ('pass', 'fail') or 'actual_final' not in t:
            rep = str(t.get('report', ''))
            if 'not supported' in rep:
                m = re.search(r'[^\n]*not supported[^\n]*', rep)
                raise SkipCase('weir: ' + m.group(0).strip()[:160])
            return None, None, 'weir test reported %s: %s' % (t.get('status'), rep.strip()[:300]), log
        final = [('actual_final[%d]' % i, dict(r, op='insert')) if isinstance(r, dict) else ('actual_final[%d]' % i, r)
                 for i, r in enumerate(t.get('actual_final') or [])]
        rows, problems = self.replay(final, names, kinds, None)
        actual = [('actual[%d]' % i, r) for i, r in enumerate(t.get('actual') or [])]
        replayed, problems2 = self.replay(actual, names, kinds, key)
        problems += problems2
        if insert_only:
            problems += self.insert_only_problems(actual, 'weir test')
        a, b = multiset_diff(rows, replayed)
        if a or b:
            problems.append('weir test: the changelog (actual) does not replay to actual_final: '
                            '%d rows only in actual_final, %d only in the replay' % (len(a), len(b)))
        return rows, problems, None, log

    def weir_key(self, d):
        """weir's presentation key of the final model (`weir explain --format json`): a list
        of column names ([] = at most one row) or None, and its changelog mode.
        -> (key, output mode, failure reason, log)."""
        p, log = self.weir(d, 'explain', FINAL_MODEL, '--format', 'json')
        if p is None or p.returncode != 0:
            reason, log = self.weir_failed(d, 'explain', p, log)
            return None, None, reason, log
        try:
            doc = [x for x in json_documents(p.stdout) if isinstance(x, dict)][-1]
            for m in doc['models']:
                if m['name'] == FINAL_MODEL:
                    return m.get('key'), m.get('output_mode'), None, log
        except (ValueError, KeyError, TypeError, IndexError):
            pass
        return None, None, 'weir explain --format json: no key for %s' % FINAL_MODEL, log

    # -- one case --
    def run_case(self, case, events=None, models=None, keep_dir=None, reroll=False):
        """Runs one case. reroll: return Outcome('reroll') without running weir when
        PostgreSQL's result is empty or larger than MAX_RESULT_ROWS."""
        events = case.events if events is None else events
        models = case.models if models is None else models
        d = keep_dir or tempfile.mkdtemp(prefix='weir-diff-%d-' % case.seed)
        os.makedirs(d, exist_ok=True)
        keep = bool(keep_dir) or self.args.keep
        try:
            ops, finals = self.write_project(case, events, models, d)
            if getattr(self.args, 'self_test', False):
                key0 = infer_key(models, case.schema) if case.family == 'classic' else None
                marks0 = late_marks(case, events, models) if getattr(case, 'lateness', False) else None
                with open(os.path.join(d, '.difftest-case.json'), 'w') as f:
                    json.dump({'pg': self.pg_script(case, finals, models, marks0, 'test'),
                               'pg_run': self.pg_script(case, finals, models, marks0, 'run'),
                               'key': key0}, f)
            marks = late_marks(case, events, models) if getattr(case, 'lateness', False) else None
            names, kinds, pgtypes, pg_rows, pg_raw = self.run_pg(case, finals, models, marks, 'test')
            per_mode = {'test': pg_rows, 'run': pg_rows}
            if marks:
                per_mode['run'] = self.run_pg(case, finals, models, marks, 'run')[3]
            if self.args.pg_only:
                return Outcome('pass', nrows=len(pg_rows)), d, None
            if reroll and (not pg_rows or len(pg_rows) > max(MAX_RESULT_ROWS, 2 * case.nrows)):
                return Outcome('reroll', nrows=len(pg_rows)), d, None
            info = {'names': names, 'pgtypes': pgtypes, 'pg_raw': pg_raw}
            os.makedirs(os.path.join(d, 'tests'), exist_ok=True)
            with open(os.path.join(d, 'tests', 'difftest.yml'), 'w', encoding='utf-8') as f:
                f.write(regression_yaml(case, events, info, models))
            key, omode, err, log = self.weir_key(d)
            if err:
                keep = True
                return Outcome('fail', '[explain] %s' % err, log), d, None
            key_problems = []
            if key is not None:
                if any(k not in names for k in key):
                    key_problems.append('weir\'s key %s names columns the model does not have' % key)
                else:
                    idx = [names.index(k) for k in key]
                    seen = Counter(tuple(row[i] for i in idx) for row in pg_rows)
                    dup = [kv for kv, n in seen.items() if n > 1]
                    if dup:
                        key_problems.append('weir\'s presentation key %s is not unique in '
                                            'PostgreSQL\'s result (e.g. %s)' % (key, dup[0]))
            expect_dead = None
            if marks and 'run' in self.args.modes and hasattr(models[-1][1], 'late_count_sql'):
                expect_dead = self.pg_count(case, finals, models, marks, 'run',
                                            render_marks(models[-1][1].late_count_sql(), True))
                if getattr(self.args, 'self_test', False):
                    mp = os.path.join(d, '.difftest-case.json')
                    with open(mp) as f:
                        meta = json.load(f)
                    meta['dead'] = expect_dead
                    with open(mp, 'w') as f:
                        json.dump(meta, f)
            self.case_seed = case.seed
            self.case_rows = case.nrows
            for mode in self.args.modes:
                fn = self.via_run if mode == 'run' else self.via_test
                w_rows, problems, err, log = fn(d, names, kinds, key, omode == 'insert_only', expect_dead)
                if err:
                    keep = True
                    return Outcome('fail', '[%s] %s' % (mode, err), log), d, None
                pg_rows = per_mode[mode]
                problems = key_problems + problems
                only_pg, only_w = multiset_diff(pg_rows, w_rows)
                if only_pg or only_w or problems:
                    keep = True
                    info.update({'mode': mode, 'pg_rows': pg_rows, 'w_rows': w_rows,
                                 'only_pg': only_pg, 'only_w': only_w, 'problems': problems,
                                 'log': log, 'key': key})
                    reason = problems[0].split('\n')[0] if problems and not (only_pg or only_w) else \
                        'results differ: %d rows only in PostgreSQL, %d only in weir' % (len(only_pg), len(only_w))
                    return Outcome('fail', '[%s] %s' % (mode, reason)), d, info
            return Outcome('pass', nrows=len(pg_rows)), d, None
        except SkipCase as e:
            return Outcome('skip', str(e)), d, None
        finally:
            if not keep:
                shutil.rmtree(d, ignore_errors=True)


class SkipCase(Exception):
    pass


class HarnessError(Exception):
    pass


# ----------------------------------------------------------------------------------------
# Shrinking a failing case: fewer input events, then a simpler query.

def expr_slots(x, path=()):
    """Yield (path, X) for every node below x."""
    yield path, x
    for i, k in enumerate(x.kids):
        yield from expr_slots(k, path + (i,))


def replace_at(x, path, new):
    if not path:
        return new
    y = copy.copy(x)
    y.kids = list(x.kids)
    y.kids[path[0]] = replace_at(x.kids[path[0]], path[1:], new)
    return y


def query_variants(models):
    """Simpler versions of the model list, most aggressive first."""
    out = []

    def with_model(i, nq):
        ms = list(models)
        ms[i] = (ms[i][0], nq, ms[i][2])
        return ms

    if any(hasattr(mq, 'variants') for _, mq, _ in models):
        # families.py queries know their own simplifications
        for mi, (name, mq, mat) in enumerate(models):
            if hasattr(mq, 'variants'):
                out += [with_model(mi, nq) for nq in mq.variants()]
        return out

    def selects(qq):
        """(getter, setter) pairs for every Select reachable from query qq."""
        res = []
        for bi, b in enumerate(qq.branches):
            res.append((qq, bi, b))
            if b.rel.kind == 'sub':
                res += selects(b.rel.query)
        for _, cq in qq.ctes:
            res += selects(cq)
        return res

    for mi, (name, mq, mat) in enumerate(models):
        # drop a UNION ALL branch
        if len(mq.branches) == 2:
            for keep in (0, 1):
                nq = copy.deepcopy(mq)
                nq.branches = [nq.branches[keep]]
                out.append(with_model(mi, nq))
        nsel = len(selects(mq))
        for si in range(nsel):
            def mut(fn):
                nq = copy.deepcopy(mq)
                owner, bi, sel = selects(nq)[si]
                if fn(sel) is False:
                    return
                out.append(with_model(mi, nq))
            mut(lambda s: None if s.where is not None and setattr(s, 'where', None) is None else False)
            mut(lambda s: None if s.having is not None and setattr(s, 'having', None) is None else False)
            mut(lambda s: None if s.distinct and setattr(s, 'distinct', False) is None else False)
            sel0 = selects(mq)[si][2]
            for ii in range(len(sel0.items)):
                if len(sel0.items) > 1:
                    def drop(s, ii=ii):
                        del s.items[ii]
                    mut(drop)
            # simplify expressions: replace a node with a same-typed child
            targets = [('where', None)] if sel0.where is not None else []
            targets += [('having', None)] if sel0.having is not None else []
            targets += [('item', ii) for ii in range(len(sel0.items))]
            for kind, ii in targets:
                root = sel0.where if kind == 'where' else sel0.having if kind == 'having' else sel0.items[ii][0]
                for path, node in list(expr_slots(root)):
                    for k in node.kids:
                        if k.ty == node.ty or (kind in ('where', 'having') and not path and k.ty == 'boolean'):
                            def simp(s, kind=kind, ii=ii, path=path, k=k):
                                r0 = s.where if kind == 'where' else s.having if kind == 'having' else s.items[ii][0]
                                nr = replace_at(r0, path, copy.deepcopy(k))
                                if kind == 'where':
                                    s.where = nr
                                elif kind == 'having':
                                    s.having = nr
                                else:
                                    s.items[ii] = (nr, s.items[ii][1])
                            mut(simp)
    return out


def failure_class(reason):
    """Failures of one class can stand for each other while minimising; others cannot
    (a smaller input must not turn a wrong result into, say, a late row)."""
    for word in ('dead-letter', 'crashed', 'rejected', 'not unique', 'timeout', 'did not finish'):
        if word in reason:
            return word
    return 'wrong result'


def shrink(runner, case, deadline, log, reason=''):
    """Returns (events, models) of a smaller failing case."""
    events = list(case.events)
    models = list(case.models)
    attempts = [0]
    want = failure_class(reason)

    def fails(ev, ms):
        if time.time() > deadline:
            return False
        attempts[0] += 1
        o, _d, _i = runner.run_case(case, ev, ms)
        return o.status == 'fail' and failure_class(o.reason) == want

    def shrink_events(events):
        n = 2
        while len(events) >= 1 and time.time() < deadline:
            chunk = max(1, len(events) // n)
            removed = False
            for i in range(0, len(events), chunk):
                cand = events[:i] + events[i + chunk:]
                if fails(cand, models):
                    events = cand
                    removed = True
                    n = max(n - 1, 2)
                    break
            if not removed:
                if chunk == 1:
                    break
                n = min(len(events), n * 2)
        return events

    events = shrink_events(events)
    changed = True
    while changed and time.time() < deadline:
        changed = False
        for ms in query_variants(models):
            if time.time() > deadline:
                break
            if fails(events, ms):
                models = ms
                changed = True
                break
    events = shrink_events(events)
    log('shrunk seed %d to %d events in %d attempts' % (case.seed, len(events), attempts[0]))
    return events, models


# ----------------------------------------------------------------------------------------
# Reports.

def yaml_value(pgtype, v):
    if v is None:
        return 'null'
    k = pg_kind(pgtype)
    if k in ('num',):
        return v
    if k == 'float':
        return v if re.fullmatch(r'-?[0-9.e+-]+', v) else json.dumps(v)
    if k == 'bool':
        return 'true' if v == 't' else 'false'
    return json.dumps(v, ensure_ascii=False)


def yaml_row(s, op, row):
    parts = []
    if s.updating:
        parts.append('op: %s' % op)
    for c in s.cols:
        v = row.get(c['name'])
        if v is None:
            continue
        if c['ty'] == 'timestamp':
            parts.append('%s: %s' % (c['name'], json.dumps(fmt_ts(v))))
        elif c['ty'] == 'text':
            parts.append('%s: %s' % (c['name'], json.dumps(v, ensure_ascii=False)))
        elif c['ty'] == 'boolean':
            parts.append('%s: %s' % (c['name'], 'true' if v else 'false'))
        elif c['ty'] == 'double precision':
            parts.append('%s: %s' % (c['name'], repr(v)))
        else:
            parts.append('%s: %s' % (c['name'], v))
    return '{' + ', '.join(parts) + '}'


EPOCH = datetime.datetime(1970, 1, 1)
END_OF_TIME = '2999-12-31 00:00:00'


def ts_us(dt):
    d = dt - EPOCH
    return (d.days * 86400 + d.seconds) * 1000000 + d.microseconds


def us_ts(us):
    return EPOCH + datetime.timedelta(microseconds=us)


def test_steps(case, ops, used):
    """The steps of the `weir test` case: ('rows', si, op, row) and ('wm', {si: us}).
    A test moves a source's watermark with its rows as `weir run` does; the case also
    gives it as a `watermark` step (max event time seen minus the delay) every few rows,
    which must change nothing; the caller adds the end of time at the end."""
    timed = [i for i in sorted(used) if case.sources[i].et]
    wr = random.Random(case.seed * 31 + 7)
    every = wr.choice([1, 2, 3, 5, 10])
    maxseen = {}
    last_wm = {}
    nrows = 0
    for si, op, row in ops:
        if si not in used:
            continue
        s = case.sources[si]
        yield ('rows', si, op, row)
        nrows += 1
        if s.et and row.get(s.et) is not None:
            maxseen[si] = max(maxseen.get(si, -2 ** 63), ts_us(row[s.et]))
        if timed and nrows % every == 0:
            wms = {}
            for i in timed:
                if i in maxseen and maxseen[i] - case.sources[i].delay_us > last_wm.get(i, -2 ** 63):
                    last_wm[i] = maxseen[i] - case.sources[i].delay_us
                    wms[i] = last_wm[i]
            if wms:
                yield ('wm', wms)


def case_used(case, models):
    return set(used_sources(case, models)) if len(case.sources) > 1 else {0}


def late_marks(case, events, models):
    """For cases that test lateness (insert-only sources): per source, for each final row
    (= each inserted row, in order), the watermark it is judged against in `weir run`
    and in `weir test` (microseconds, or None). Both judge a row against the watermark
    that held before it in its source (docs/run.md, docs/testing.md): the largest event
    time of the source's earlier rows minus the delay, whatever the batching; the
    `watermark` steps of the test case never move it beyond that."""
    ops, _ = derive_ops_multi(case.sources, events)
    used = case_used(case, models)
    out = [[] for _ in case.sources]
    for si, s in enumerate(case.sources):
        rows = [row for i, _op, row in ops if i == si]
        marks = []
        seen = None          # largest event time of the rows before this one
        for row in rows:
            marks.append(None if seen is None or not s.et else seen - s.delay_us)
            if s.et and row.get(s.et) is not None:
                t = ts_us(row[s.et])
                seen = t if seen is None else max(seen, t)
        out[si] = list(zip(marks, marks if si in used else [None] * len(rows)))
    return out


RUN_BATCH = 4096   # records per source and step in `weir run` (docs/run.md)


def regression_yaml(case, events, info, models=None):
    """The case as a `weir test` case: the events of every source the models read, in
    arrival order, one row per step, with watermark steps (test_steps) and, at the end,
    every watermark at the end of time, which closes every window."""
    models = case.models if models is None else models
    ops, _finals = derive_ops_multi(case.sources, events)
    used = case_used(case, models)
    timed = [i for i in sorted(used) if case.sources[i].et]
    lines = ['tests:', '  - name: difftest_seed_%d' % case.seed, '    model: %s' % FINAL_MODEL,
             '    given:']
    cur = None
    nrows = 0
    for st in test_steps(case, ops, used):
        if st[0] == 'wm':
            lines.append('      - watermark: {%s}' % ', '.join(
                '%s: %s' % (case.sources[i].name, json.dumps(fmt_ts(us_ts(v)))) for i, v in st[1].items()))
            cur = None
            continue
        _, si, op, row = st
        s = case.sources[si]
        if cur != si:
            lines += ['      - source: %s' % s.name, '        rows:']
            cur = si
        lines.append('          - ' + yaml_row(s, op, row))
        nrows += 1
    if not nrows:
        lines += ['      - source: %s' % case.sources[min(used) if used else 0].name, '        rows: []']
    if timed:
        lines.append('      - watermark: {%s}' % ', '.join(
            '%s: %s' % (case.sources[i].name, json.dumps(END_OF_TIME)) for i in timed))
    lines.append('    expect_final:' + ('' if info['pg_raw'] else ' []'))
    for raw in info['pg_raw']:
        lines.append('      - {' + ', '.join('%s: %s' % (n, yaml_value(t, v)) for n, t, v in
                                             zip(info['names'], info['pgtypes'], raw)) + '}')
    return '\n'.join(lines) + '\n'


def report(case, events, models, outcome, d, info, shrunk):
    out = []
    out.append('=' * 78)
    out.append('MISMATCH seed %d: %s' % (case.seed, outcome.reason))
    out.append('reproduce: tests/differential/difftest.py --seed %d%s%s' % (
        case.seed, ' --rows %d' % case.nrows if case.nrows != 300 else '',
        '   (query variant %d: the earlier ones gave empty results)' % case.variant if case.variant else ''))
    out.append('family: %s' % case.label)
    for src in case.sources:
        out.append('source %s (%s%s), columns: %s' % (
            src.name, 'changelog-json, primary_key [id]' if src.updating else 'json',
            ', event_time %s, watermark_delay %s' % (src.et, fmt_duration(src.delay_us)) if src.et else '',
            ', '.join('%s %s' % (c['name'], c['decl']) for c in src.cols)))
    for name, mq, mat in models:
        out.append('model %s%s:' % (name, ' (materialized: %s)' % mat if mat else ''))
        out.append('  ' + model_sql(mq, False))
    if case.family != 'classic':
        out.append('PostgreSQL query of %s:' % FINAL_MODEL)
        out.append('  ' + model_sql(models[-1][1], True))
    out.append('project dir (kept): %s%s' % (d, '  (shrunk case)' if shrunk else ''))
    for src in case.sources:
        fp = os.path.join(d, src.file)
        text = open(fp, encoding='utf-8').read() if os.path.exists(fp) else ''
        nlines = len(text.splitlines())
        out.append('input: %s/%s (%d events)' % (d, src.file, nlines))
        if len(events) <= 25:
            for line in text.splitlines():
                out.append('  ' + line)
    if info is None:
        out.append(outcome.detail)
        return '\n'.join(out)
    names = info['names']
    out.append('output columns: ' + ', '.join('%s %s' % nt for nt in zip(names, info['pgtypes'])))
    out.append("weir's presentation key: %s" % (info.get('key'),))
    for p in info['problems']:
        out.append('problem: ' + p)
    wtitle = 'weir (%s)' % ('weir run, file sink' if info['mode'] == 'run' else
                           'weir test, one row per step')
    for title, rows in (('PostgreSQL', info['pg_rows']), (wtitle, info['w_rows'])):
        out.append('%s result (%d rows, sorted):' % (title, len(rows)))
        for row in sorted(rows, key=sort_key)[:60]:
            out.append('  ' + show_row(names, row))
        if len(rows) > 60:
            out.append('  ... %d more' % (len(rows) - 60))
    out.append('rows only in PostgreSQL (missing from weir): %d' % len(info['only_pg']))
    for row in sorted(info['only_pg'], key=sort_key)[:30]:
        out.append('  - ' + show_row(names, row))
    out.append('rows only in weir (unexpected): %d' % len(info['only_w']))
    for row in sorted(info['only_w'], key=sort_key)[:30]:
        out.append('  + ' + show_row(names, row))
    out.append('weir test case with PostgreSQL\'s rows as expect_final: %s/tests/difftest.yml' % d)
    return '\n'.join(out)


# ----------------------------------------------------------------------------------------
# Self-test: a stand-in for `weir run` that answers with PostgreSQL's results written as
# a deliberately roundabout changelog, to check the harness's own replay and comparison.

def fake_weir(argv):
    d = argv[argv.index('--project-dir') + 1]
    cmd = [a for a in argv if a in ('run', 'test', 'check', 'explain')][0]
    with open(os.path.join(d, '.difftest-case.json')) as f:
        meta = json.load(f)
    if cmd == 'check':
        return 0
    if cmd == 'explain':
        print(json.dumps({'version': 1, 'models': [{'name': FINAL_MODEL, 'key': meta['key']}]}))
        return 0
    p = psql(['-f', '-'], meta['pg_run' if cmd == 'run' else 'pg'])
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        return 3
    out = p.stdout
    t_at = out.index('@@TYPES\n') + len('@@TYPES\n')
    r_at = out.index('@@ROWS\n')
    types = parse_csv_quoted(out[t_at:r_at])
    raw = parse_csv_quoted(out[r_at + len('@@ROWS\n'):])
    r = random.Random(len(out))
    bug = os.environ.get('DIFFTEST_FAKE_BUG')

    def enc(row):
        parts = []
        for (n, t), v in zip(types, row):
            k = pg_kind(t)
            if v is None:
                s = 'null'
            elif k == 'num':
                s = v
            elif k == 'float':
                s = v if re.fullmatch(r'-?[0-9.e+-]+', v) else json.dumps(v)
            elif k == 'bool':
                s = 'true' if v == 't' else 'false'
            elif k == 'ts':
                s = json.dumps(v.replace(' ', 'T') if r.random() < 0.3 else v)
            else:
                s = json.dumps(v, ensure_ascii=False)
            parts.append('"%s": %s' % (n, s))
        return ', '.join(parts)

    lines = []
    key = meta['key']
    names = [n for n, _ in types]
    for row in raw:
        if r.random() < 0.3:
            junk = list(row)
            for i, (n, t) in enumerate(types):
                if key is None or n not in key:
                    junk[i] = None
            if key is not None and key != [] and len(key) < len(names) and r.random() < 0.5:
                lines.append('{"op": "insert", %s}' % enc(junk))
                lines.append('{"op": "update", %s}' % enc(row))
                continue
            lines.append('{"op": "insert", %s}' % enc(junk))
            lines.append('{"op": "delete", %s}' % enc(junk))
        lines.append('{"op": "insert", %s}' % enc(row))
    if bug and raw:
        lines.pop()
    if cmd == 'test':
        final = ['{%s}' % enc(row) for row in raw]
        if bug and final:
            final.pop()
        print('{"tests": [{"name": "difftest", "status": "fail", "report": "", "actual": [%s], '
              '"actual_final": [%s]}], "passed": 0, "failed": 1}' % (', '.join(lines), ', '.join(final)))
        return 1
    os.makedirs(os.path.join(d, 'out'), exist_ok=True)
    with open(os.path.join(d, 'out', 'result.jsonl'), 'w', encoding='utf-8') as f:
        f.write(''.join(line + '\n' for line in lines))
    print(json.dumps({'events_in': 0, 'dead_letters': meta.get('dead', 0), 'sources': [], 'models': []}))
    return 0


# ----------------------------------------------------------------------------------------
# CLI.

def parse_seeds(spec):
    seeds = []
    for part in spec.replace(' ', '').split(','):
        if not part:
            continue
        if '-' in part[1:]:
            a, b = part.split('-', 1)
            seeds += list(range(int(a), int(b) + 1))
        else:
            seeds.append(int(part))
    return seeds


def main(argv):
    if argv[:1] == ['--fake-weir']:
        return fake_weir(argv[1:])
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--seeds', default='1-200', help='seeds: ranges and lists, e.g. 1-50,77,90-99')
    ap.add_argument('--seed', type=int, help='run one seed (reproduce a failure)')
    ap.add_argument('--rows', type=int, default=300, help='events per seed (default 300)')
    ap.add_argument('--keep', action='store_true', help='keep every project directory')
    ap.add_argument('--verbose', '-v', action='store_true', help='print every seed and its query')
    ap.add_argument('--jobs', '-j', type=int, default=os.cpu_count() or 2, help='seeds in parallel')
    ap.add_argument('--no-shrink', action='store_true', help='do not minimise failing cases')
    ap.add_argument('--shrink-time', type=float, default=60.0,
                    help='seconds spent minimising each failing seed (default 60)')
    ap.add_argument('--max-shrink', type=int, default=3,
                    help='minimise at most this many failing seeds per run (default 3)')
    ap.add_argument('--show-query', action='store_true', help='print the generated models and exit')
    ap.add_argument('--variant', type=int, default=0, help='query variant for --show-query')
    ap.add_argument('--pg-only', action='store_true',
                    help='only check that PostgreSQL accepts the generated queries (no weir)')
    ap.add_argument('--self-test', action='store_true',
                    help='run against a built-in stand-in for weir that answers from PostgreSQL')
    ap.add_argument('--family', default='',
                    help='only the seeds of these query families (comma-separated: %s)' % ', '.join(FAMILIES))
    ap.add_argument('--workers', type=int, default=None,
                    help='weir run --workers N (default: weir\'s default, the machine\'s cores)')
    ap.add_argument('--mode', choices=['run', 'test', 'both'], default='both',
                    help='run: weir run (file source and sink, batches); test: weir test '
                         '(simulator, one row per step); both (default)')
    args = ap.parse_args(argv)
    args.modes = ['run', 'test'] if args.mode == 'both' else [args.mode]
    seeds = [args.seed] if args.seed is not None else parse_seeds(args.seeds)
    if args.family:
        fams = args.family.split(',')
        bad = [f for f in fams if f not in FAMILIES]
        if bad:
            print('difftest: unknown family %s (families: %s)' % (', '.join(bad), ', '.join(FAMILIES)),
                  file=sys.stderr)
            return 2
        seeds = [s for s in seeds if family_of(s) in fams]

    if args.show_query:
        for s in seeds:
            case = Case(s, args.rows, args.variant)
            print('-- seed %d (%s; %s)' % (s, case.label, ', '.join(
                '%s %s%s' % (src.name, 'changelog' if src.updating else 'insert-only',
                             ' et' if src.et else '') for src in case.sources)))
            for name, mq, _ in case.models:
                print('%s: %s' % (name, model_sql(mq, False)))
        return 0
    if args.self_test:
        os.environ['WEIR'] = '%s %s --fake-weir' % (shlex.quote(sys.executable),
                                                    shlex.quote(os.path.abspath(__file__)))
    elif not args.pg_only:
        w = weir_cmd()
        if not (os.path.exists(w[0]) or shutil.which(w[0])):
            print('difftest: weir binary not found: %s (build it with make, or set WEIR)' % w[0],
                  file=sys.stderr)
            return 2
    try:
        ensure_database()
    except HarnessError as e:
        print('difftest: %s' % e, file=sys.stderr)
        return 2
    runner = Runner(args)
    lock = threading.Lock()
    started = time.time()

    def log(msg):
        with lock:
            print(msg, flush=True)

    def one(seed):
        for variant in range(MAX_VARIANTS):
            case = Case(seed, args.rows, variant)
            o, d, info = runner.run_case(case, reroll=variant < MAX_VARIANTS - 1)
            if o.status != 'reroll':
                break
        if args.verbose:
            log('seed %d: %s%s [%s]' % (seed, o.status, (' (' + o.reason + ')') if o.reason else '',
                                        case.label))
            for name, mq, _ in case.models:
                log('    %s: %s' % (name, model_sql(mq, False)))
        elif o.status == 'fail':
            log('seed %d: FAIL (%s)' % (seed, o.reason))
        return case, o, d, info

    failures = []
    skips = Counter()
    npass = 0
    sizes = []
    fam = {}      # family -> Counter of pass/fail/skip
    shapes = Counter()
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
            for case, o, d, info in ex.map(one, seeds):
                fam.setdefault(case.family, Counter())[o.status] += 1
                shapes[case.label] += 1
                if o.status == 'pass':
                    npass += 1
                    sizes.append(o.nrows)
                elif o.status == 'skip':
                    skips[o.reason] += 1
                else:
                    failures.append((case, o, d, info))
    except HarnessError as e:
        print('difftest: harness error: %s' % e, file=sys.stderr)
        return 2

    nshrunk = 0
    for case, o, d, info in failures:
        events, models, shrunk = case.events, case.models, False
        if not args.no_shrink and nshrunk < args.max_shrink:
            nshrunk += 1
            try:
                ev2, ms2 = shrink(runner, case, time.time() + args.shrink_time, log, o.reason)
                md = tempfile.mkdtemp(prefix='weir-diff-%d-min-' % case.seed)
                o2, _d, info2 = runner.run_case(case, ev2, ms2, keep_dir=md)
                if o2.status == 'fail':
                    events, models, o, d, info, shrunk = ev2, ms2, o2, md, info2, True
                else:
                    shutil.rmtree(md, ignore_errors=True)
            except HarnessError as e:
                log('seed %d: not minimised: %s' % (case.seed, e))
        print(report(case, events, models, o, d, info, shrunk), flush=True)

    if failures:
        print('failed seeds (full reports above; reproduce with --seed N):')
        for case, o, d, info in failures:
            print('  seed %d: %s' % (case.seed, o.reason))
    total = len(seeds)
    nskip = sum(skips.values())
    if skips:
        print('skipped %d of %d seeds:' % (nskip, total))
        for reason, n in skips.most_common(15):
            print('  %4d  %s' % (n, reason))
        if len(skips) > 15:
            print('  ... %d more reasons' % (len(skips) - 15))
    if len(fam) > 1 or args.verbose:
        print('seeds per family (pass/fail/skip):')
        for f in FAMILIES:
            if f in fam:
                c = fam[f]
                print('  %-9s %4d  (%d/%d/%d)' % (f, sum(c.values()), c['pass'], c['fail'], c['skip']))
    if args.verbose:
        print('shapes:')
        for label, n in sorted(shapes.items()):
            print('  %4d  %s' % (n, label))
    if sizes:
        sizes.sort()
        print('result sizes of passing seeds: %d empty, median %d rows, max %d'
              % (sum(1 for n in sizes if n == 0), sizes[len(sizes) // 2], sizes[-1]))
    status = 0
    if failures:
        status = 1
    if nskip * 20 > total:
        print('too many skipped seeds (%d of %d, limit 5%%): the generator must produce '
              'queries both PostgreSQL and weir accept' % (nskip, total))
        status = 1
    print('elapsed %.1fs' % (time.time() - started))
    if RUN_REPLICAS and max(RUN_REPLICAS) > 1:
        print('weir run on engine replicas (partitioned by a key): %d of %d runs'
              % (sum(1 for r in RUN_REPLICAS if r > 1), len(RUN_REPLICAS)))
    print('%d passed, %d failed' % (npass, len(failures)))
    return status


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
