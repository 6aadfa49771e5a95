"""Query families of the differential tester over two or three sources: joins,
subqueries, event-time windows, interval joins, TopN, set operations and running
aggregates (difftest.py holds the single-source 'classic' family, the expression
generator, the harness and the minimiser; see README.md).

A family builds its sources (shared small key domains, insert-only or updating, with or
without event time), the interleaved event stream and the models. Queries are objects
with sql(pg): the weir text and the PostgreSQL text of the same query (windows and
sessions are rewritten for PostgreSQL with date_bin / generate_series / gaps and
islands), relations written as markers (difftest.render_marks), and variants() for the
minimiser.

Event time. A source with event time gets times from one clock shared by all sources:
mostly in order, each row at most `jitter` behind the clock, and every source's
watermark_delay is at least that jitter, so no row is ever late (per row as well as per
batch). Updates and deletes of an updating source only touch keys whose every version is
still above the source's watermark, so no retraction is late either. The harness checks
that nothing was dead-lettered.
"""

import copy
import datetime

import difftest as D
from difftest import X, Col, Gen, AggGen, cat_of

# ----------------------------------------------------------------------------------------
# Sources and events.

KEY_TEXT = ['x', 'y', 'Y', 'ab', 'Ab', '', 'ü', 'k 1', 'zz', 'é', 'a,b', 'O\'B']
SEC = 1000000


class Clock:
    """Event times (microseconds since the epoch) shared by every source of a case."""

    def __init__(self, r, mode, nrows):
        self.r = r
        self.mode = mode            # 'bounded' (never late) | 'free' (any order) | 'distinct'
        base = datetime.datetime(*r.choice([(2024, 1, 1), (2024, 2, 29), (2023, 12, 31), (2024, 6, 30)]))
        base += datetime.timedelta(hours=r.choice([0, 0, 23, 12]), minutes=r.choice([0, 59, 17]),
                                   seconds=r.choice([0, 0, 30, 55]))
        self.base_dt = base
        self.now = D.ts_us(base)
        self.start = self.now
        self.quantum = r.choice([250000, 500000, SEC, SEC, 100000])
        self.steps = r.choice([[0, 1, 1, 2, 4], [0, 0, 1, 2], [1, 2, 3, 4, 8], [0, 1, 2, 3, 4, 5, 6, 10]])
        if self.quantum <= 250000:
            self.steps = [4 * s for s in self.steps] if r.random() < 0.5 else self.steps
        self.jitter = r.choice([0, 0, 1, 2, 5, 10]) * SEC
        self.p_late = r.choice([0.1, 0.3, 0.6])
        if mode == 'late':
            self.jitter = r.choice([3, 5, 10, 30]) * SEC
            self.p_late = r.choice([0.05, 0.15, 0.3])
        self.used = set()
        self.span = 0

    def tick(self):
        self.now += self.r.choice(self.steps) * self.quantum

    def time(self):
        r = self.r
        if self.mode == 'free':
            t = self.start + r.randint(0, 600) * self.quantum
        elif self.mode == 'late':
            t = self.now
            if r.random() < 0.01:
                # very late: from anywhere earlier in the stream (late for `weir run` too)
                t = self.start + r.randint(0, (self.now - self.start) // self.quantum) * self.quantum
            elif r.random() < self.p_late:
                t -= r.randint(0, self.jitter // self.quantum) * self.quantum
        else:
            t = self.now
            if self.jitter and r.random() < self.p_late:
                t -= r.randint(0, self.jitter // self.quantum) * self.quantum
        if self.mode == 'distinct':
            while t in self.used:
                t += 1       # a microsecond: far below the slack kept in the delay
            self.used.add(t)
        return t


def int_key_col(r, name, dom):
    t = r.choice(['integer', 'bigint', 'bigint', 'smallint', 'numeric', 'numeric(6,1)'])
    c = {'name': name, 'null_rate': r.choice([0.0, 0.0, 0.05, 0.15]), 'mag': max(dom) + 2}
    if t.startswith('numeric'):
        c['ty'] = 'numeric'
        c['decl'] = t
        c['domain'] = [('%d.0' % v if (t == 'numeric(6,1)' or r.random() < 0.3) else str(v)) for v in dom]
        c['sc'] = 1 if t == 'numeric(6,1)' else max(len(v.split('.')[1]) if '.' in v else 0 for v in c['domain'])
        if t == 'numeric(6,1)':
            c['p'], c['s'] = 6, 1
    else:
        c['ty'] = c['decl'] = t
        c['domain'] = list(dom)
    return c


def text_key_col(r, name, dom):
    return {'name': name, 'ty': 'text', 'decl': 'text', 'null_rate': r.choice([0.0, 0.0, 0.05, 0.15]),
            'mag': 0, 'domain': list(dom)}


class World:
    """The sources of a case and their event stream."""

    def __init__(self, r, case, nsrc, time_mode, updating, k2=True, nvalue=(1, 3), weights=None,
                 kdiv=(5, 8, 12)):
        """time_mode: None (no event time) | 'bounded' | 'distinct' | 'mixed' (non-time
        families: event time on some sources, times in any order) ; updating: list of
        bools per source or a probability."""
        self.r = r
        self.case = case
        nrows = case.nrows
        if time_mode == 'mixed':
            time_mode = r.choice([None, 'free', 'bounded'])
        self.time_mode = time_mode
        self.clock = Clock(r, time_mode or 'bounded', nrows)
        case.lateness = time_mode == 'late'
        per = max(10, nrows // nsrc)
        dsize = max(3, per // r.choice(kdiv))
        off = [0] + [r.choice([0, 0, 1, 2]) for _ in range(nsrc - 1)]
        tdom = KEY_TEXT[:3] + ['k%d' % i for i in range(max(1, dsize // 2 - 3))]
        tdom = r.sample(tdom, min(len(tdom), max(3, dsize // 2)))
        self.sources = []
        if not isinstance(updating, list):
            updating = [r.random() < updating for _ in range(nsrc)]
        for i in range(nsrc):
            short = 'abcdefgh'[i]
            ts_base = self.clock.base_dt
            cols = [{'name': 'id', 'decl': 'bigint', 'ty': 'bigint', 'mag': 10 ** 6,
                     'null_rate': 0.0, 'domain': None}]
            cols.append(int_key_col(r, 'k1', range(1 + off[i], dsize + 1 + off[i])))
            if k2 and (i == 0 or r.random() < 0.8):
                cols.append(text_key_col(r, 'k2', tdom))
            et = None
            if time_mode and (time_mode != 'free' or r.random() < 0.6):
                et = 'et'
                cols.append({'name': 'et', 'ty': 'timestamp', 'decl': 'timestamp', 'null_rate': 0.0,
                             'mag': 0, 'domain': None})
            for j in range(r.randint(*nvalue)):
                t = r.choice(D.VALUE_TYPES)
                cols.append(D.gen_column(r, t, '%s%d' % (D.TYPE_PREFIX[t], j + 1), ts_base))
            schema = D.Schema(cols, updating[i], ts_base)
            delay = None
            if et and time_mode == 'late':
                # disorder beyond the delay: some rows arrive after their window closed
                delay = r.choice([0, 500000, SEC, 2 * SEC])
            elif et:
                delay = self.clock.jitter + r.choice([0, 0, 500000, SEC, 3 * SEC, 10 * SEC])
                if time_mode == 'free':
                    delay = r.choice([0, SEC, 5 * SEC])
                elif time_mode == 'distinct':
                    delay += 10000
            self.sources.append(D.SourceSpec('t.' + short, schema, et=et, delay_us=delay))
        self.weights = weights or [r.choice([1, 2, 3]) for _ in range(nsrc)]
        if nrows > D.RUN_BATCH and nsrc > 1:
            # long streams: one source spans several `weir run` batches
            self.weights = [12] + [1] * (nsrc - 1)
        self.events = self.gen_events(nrows)
        self.ts_base = self.clock.base_dt
        if self.time_mode in ('bounded', 'distinct'):
            check_in_time(self.sources, self.events)

    def row(self, s, key):
        r = self.r
        row = {}
        for c in s.cols:
            if c['name'] == 'id':
                row['id'] = key
            elif c['name'] == s.et:
                row[c['name']] = D.us_ts(self.clock.time())
                if self.time_mode == 'free' and r.random() < 0.05:
                    row[c['name']] = None   # no operator here depends on event time
            else:
                row[c['name']] = D.gen_value(r, c)
        return row

    def gen_events(self, nrows):
        r = self.r
        n = len(self.sources)
        seq = [0] * n
        live = [dict() for _ in range(n)]
        kmin = [dict() for _ in range(n)]     # key -> earliest event time of its versions
        maxseen = [-2 ** 63] * n
        nkeys = [max(3, (nrows // n) // r.choice([2, 3, 4])) for _ in range(n)]
        fresh = self.time_mode in ('bounded', 'distinct')
        events = []
        tot = sum(self.weights)
        for _ in range(nrows):
            self.clock.tick()
            x = r.random() * tot
            si = 0
            while x > self.weights[si]:
                x -= self.weights[si]
                si += 1
            s = self.sources[si]
            et = s.et
            if not s.updating:
                seq[si] += 1
                row = self.row(s, seq[si])
                events.append((si, row))
                if et and row[et] is not None:
                    maxseen[si] = max(maxseen[si], D.ts_us(row[et]))
                continue
            lv = live[si]
            if fresh and et:
                wm = maxseen[si] - s.delay_us
                cands = [k for k in lv if kmin[si][k] >= wm]
                if cands and r.random() < 0.55:
                    k = r.choice(sorted(cands))
                else:
                    seq[si] += 1
                    k = seq[si]
            else:
                k = r.randint(1, nkeys[si])
            if k not in lv:
                row = self.row(s, k)
                lv[k] = row
                events.append((si, (k, row)))
                if et and row[et] is not None:
                    kmin[si][k] = D.ts_us(row[et])
            elif r.random() < 0.35:
                del lv[k]
                events.append((si, (k, None)))
            else:
                row = dict(lv[k])
                nonkey = [c for c in s.cols if c['name'] != 'id']
                for c in r.sample(nonkey, r.randint(1, len(nonkey))):
                    if c['name'] == et:
                        row[et] = D.us_ts(self.clock.time())
                    else:
                        row[c['name']] = D.gen_value(r, c)
                lv[k] = row
                events.append((si, (k, row)))
                if et and row[et] is not None and k in kmin[si]:
                    kmin[si][k] = min(kmin[si][k], D.ts_us(row[et]))
            last = events[-1][1][1]
            if et and last is not None and last[et] is not None:
                maxseen[si] = max(maxseen[si], D.ts_us(last[et]))
        self.clock.span = self.clock.now - self.clock.start
        return events

    def scope(self, i, alias, exclude_et=False):
        """The columns of source i as seen through `alias` (None: unqualified)."""
        s = self.sources[i]
        out = []
        for c in s.cols:
            if exclude_et and c['name'] == s.et:
                continue
            name = (alias + '.' + c['name']) if alias else c['name']
            out.append(Col(name, c['ty'], c.get('mag', 0), sc=c.get('sc', 0)))
        return out

    def has(self, i, col):
        return any(c['name'] == col for c in self.sources[i].cols)

    def coltype(self, i, col):
        for c in self.sources[i].cols:
            if c['name'] == col:
                return c['ty']
        return None

    def gen(self, cols):
        return Gen(self.r, cols, self.case.nrows, self.sources[0].schema)


def check_in_time(sources, events):
    """Asserts the generator's promise: no row and no retraction of a source with event
    time is behind its watermark (max event time seen before it minus the delay)."""
    ops, _ = D.derive_ops_multi(sources, events)
    prev = [dict() for _ in sources]     # key -> current row
    maxseen = [None] * len(sources)
    for si, op, row in ops:
        s = sources[si]
        if not s.et:
            continue
        wm = None if maxseen[si] is None else maxseen[si] - s.delay_us
        times = [D.ts_us(row[s.et])]
        if s.updating and op == 'update':
            times.append(D.ts_us(prev[si][row['id']][s.et]))
        for t in times:
            assert wm is None or t >= wm, 'generator: a late row in %s' % s.name
        if s.updating:
            if op == 'delete':
                prev[si].pop(row['id'], None)
            else:
                prev[si][row['id']] = row
        t = D.ts_us(row[s.et])
        maxseen[si] = t if maxseen[si] is None else max(maxseen[si], t)


def src(name, default_alias=False):
    return '\u00ab%s:%s\u00bb' % ('srcd' if default_alias else 'src', name)


def ref(name):
    return '\u00abref:%s\u00bb' % name


# ----------------------------------------------------------------------------------------
# Queries: slots of expressions that the minimiser may drop or simplify.

class FQ:
    family = '?'
    min_items = 1

    def __init__(self):
        self.items = []        # [(X, alias)]
        self.slots = {}        # name -> X or None
        self.optional = set()  # slots that may be dropped
        self.keep_items = set()  # aliases other clauses refer to

    def s(self, name):
        x = self.slots.get(name)
        return None if x is None else x.sql()

    def items_sql(self):
        return ', '.join('%s AS %s' % (x.sql(), a) for x, a in self.items)

    def struct_variants(self):
        return []

    def variants(self):
        out = list(self.struct_variants())
        for name in sorted(self.slots):
            if name in self.optional and self.slots[name] is not None:
                v = copy.deepcopy(self)
                v.slots[name] = None
                out.append(v)
        if len(self.items) > self.min_items:
            for i, (_, a) in enumerate(self.items):
                if a not in self.keep_items:
                    v = copy.deepcopy(self)
                    del v.items[i]
                    out.append(v)
        targets = [('slot', n) for n in sorted(self.slots) if self.slots[n] is not None]
        targets += [('item', i) for i in range(len(self.items))]
        for kind, key in targets:
            root = self.slots[key] if kind == 'slot' else self.items[key][0]
            for path, node in list(D.expr_slots(root)):
                for k in node.kids:
                    if k.ty == node.ty or (kind == 'slot' and not path and k.ty == 'boolean'):
                        v = copy.deepcopy(self)
                        nr = D.replace_at(root, path, copy.deepcopy(k))
                        if kind == 'slot':
                            v.slots[key] = nr
                        else:
                            v.items[key] = (nr, v.items[key][1])
                        out.append(v)
        return out


def conj(parts):
    parts = [p for p in parts if p]
    return ' AND '.join(parts)


def out_cols(items):
    return [Col(a, x.ty, x.mag, x.inexact, x.sc) for x, a in items]


def pick_items(g, r, n, exact=False, cats=None, cols=None, pcol=0.35):
    """n select items over g's scope: plain columns sometimes, expressions otherwise."""
    items = []
    cats = cats or ['int', 'int', 'numeric', 'float', 'text', 'text', 'bool', 'ts']
    for _ in range(n):
        pool = [c for c in (cols or g.cols) if not (exact and c.inexact)]
        if pool and r.random() < pcol:
            items.append(r.choice(pool).x())
        else:
            items.append(g.expr(g.pick_cat(cats), r.randint(0, 2), exact=exact, need_col=True))
    return items


def agg_items(r, g, group, nrows, schema, n=None):
    ag = AggGen(r, g, group, nrows, schema)
    out = []
    for _ in range(n or r.randint(1, 3)):
        cat = g.pick_cat(['int', 'int', 'numeric', 'numeric', 'float', 'text', 'bool', 'ts'])
        out.append(ag.expr(cat, r.choice([0, 0, 1]), need_col=True))
    return ag, out


def group_keys(r, g, cols, n, prefer=()):
    """1..n grouping keys: preferred columns (join keys), other exact columns, rarely
    an expression."""
    keys = []
    pref = [c for c in cols if c.name.split('.')[-1] in prefer and not c.inexact]
    other = [c for c in cols if not c.inexact]
    for _ in range(n):
        if pref and r.random() < 0.6:
            x = r.choice(pref).x()
        elif other and r.random() < 0.8:
            x = r.choice(other).x()
        else:
            x = g.expr(g.pick_cat(['int', 'text', 'bool']), 1, exact=True, need_col=True)
            if not x.has_col():
                continue
        if all(x.sql() != k.sql() for k in keys):
            keys.append(x)
    return keys


# ----------------------------------------------------------------------------------------
# Joins (also interval joins), and a SELECT over them.

class Side:
    """A FROM item of a join: a source, or a subquery over one (filter or aggregate)."""

    def __init__(self, si, alias, kind='src', sub=None):
        self.si = si
        self.alias = alias
        self.kind = kind       # 'src' | 'srcd' (default alias) | 'sub'
        self.sub = sub         # kind 'sub': {'items': [(X, alias)], 'src': name, 'salias', 'where', 'group'}
        self.cols = []         # [Col] as seen from outside (qualified by alias)
        self.names = []        # column names (unqualified)
        self.one_row = False   # a global aggregate: joined with CROSS JOIN


class JoinSpec:
    def __init__(self, jtype, mode, pairs=(), using=(), interval=None, res=None, right_first=False):
        self.jtype = jtype     # 'JOIN' | 'INNER JOIN' | 'LEFT JOIN' | 'RIGHT OUTER JOIN' | ...
        self.mode = mode       # 'on' | 'using' | 'natural' | 'comma'
        self.pairs = list(pairs)   # [(left sql, right sql)]
        self.using = list(using)
        self.interval = interval   # condition text or None
        self.res = res             # slot name of the residual condition, or None
        self.right_first = right_first  # write pairs as right = left


class JoinQ(FQ):
    family = 'join'

    def __init__(self):
        super().__init__()
        self.sides = []
        self.joins = []
        self.group = None
        self.distinct = False
        self.order = None       # (list of sql, limit) for ORDER BY ... LIMIT

    def side_sql(self, sd, pg):
        if sd.kind == 'srcd':
            return src(self.src_name(sd), True)
        if sd.kind == 'src':
            return '%s %s' % (src(self.src_name(sd)), sd.alias)
        sub = sd.sub
        w = self.s(sub['where'])
        t = 'SELECT %s FROM %s %s' % (', '.join('%s AS %s' % (x.sql(), a) for x, a in sub['items']),
                                      src(sub['src']), sub['salias'])
        if w:
            t += ' WHERE ' + w
        if sub.get('group'):
            t += ' GROUP BY ' + ', '.join(x.sql() for x in sub['group'])
        if sub.get('having') and self.s(sub['having']):
            t += ' HAVING ' + self.s(sub['having'])
        return '(%s) AS %s' % (t, sd.alias)

    def src_name(self, sd):
        return self.names[sd.si]

    def from_sql(self, pg):
        out = self.side_sql(self.sides[0], pg)
        where = []
        for j, sd in zip(self.joins, self.sides[1:]):
            conds = ['%s %s %s' % ((b, op, a) if j.right_first else (a, op, b)) for a, b, op in j.pairs]
            if j.interval:
                conds.append(j.interval)
            if j.res and self.s(j.res):
                conds.append(self.s(j.res))
            if j.mode == 'comma':
                out += ', ' + self.side_sql(sd, pg)
                where += conds
            elif j.mode == 'using':
                out += ' %s %s USING (%s)' % (j.jtype, self.side_sql(sd, pg), ', '.join(j.using))
            elif j.mode == 'natural':
                out += ' NATURAL %s %s' % (j.jtype, self.side_sql(sd, pg))
            elif j.mode == 'cross':
                out += ' CROSS JOIN %s' % self.side_sql(sd, pg)
            else:
                out += ' %s %s ON %s' % (j.jtype, self.side_sql(sd, pg), conj(conds) or 'TRUE')
        return out, where

    def sql(self, pg):
        fr, where = self.from_sql(pg)
        t = 'SELECT ' + ('DISTINCT ' if self.distinct else '') + self.items_sql() + ' FROM ' + fr
        w = conj(where + [self.s('where'), self.s('anti')])
        if w:
            t += ' WHERE ' + w
        if self.group:
            t += ' GROUP BY ' + ', '.join(x.sql() for x in self.group)
        if self.s('having'):
            t += ' HAVING ' + self.s('having')
        if self.order:
            t += ' ORDER BY %s LIMIT %d' % (', '.join(self.order[0]), self.order[1])
        return t

    def struct_variants(self):
        out = []
        for i, j in enumerate(self.joins):
            if j.jtype not in ('JOIN', 'INNER JOIN') and j.mode != 'comma':
                v = copy.deepcopy(self)
                v.joins[i].jtype = 'JOIN'
                out.append(v)
            if len(j.pairs) > 1 or j.pairs and j.interval:
                for k in range(len(j.pairs)):
                    v = copy.deepcopy(self)
                    del v.joins[i].pairs[k]
                    out.append(v)
        if self.distinct:
            v = copy.deepcopy(self)
            v.distinct = False
            out.append(v)
        return out


JOIN_TYPES = ['JOIN', 'INNER JOIN', 'LEFT JOIN', 'LEFT OUTER JOIN', 'RIGHT JOIN', 'FULL JOIN',
              'FULL OUTER JOIN']


def make_side(w, r, q, si, alias, allow_sub=True, exclude_et=False):
    """A join side over source si: the source itself, or a filtered or aggregated
    subquery of it (keeping the key columns' names so USING still applies)."""
    s = w.sources[si]
    x = r.random()
    if allow_sub and x < 0.04 and alias != 'a':
        # a one-row aggregate, joined with CROSS JOIN
        inner = w.scope(si, 's%d' % si, exclude_et=True)
        g = w.gen(inner)
        _, aggs = agg_items(r, g, [], w.case.nrows, s.schema, r.randint(1, 2))
        items = [(a, 'v%d' % (i + 1)) for i, a in enumerate(aggs)]
        wname = 'sub_%s_where' % alias
        q.slots[wname] = g.expr('bool', 1, need_col=True) if r.random() < 0.5 else None
        q.optional.add(wname)
        sd = Side(si, alias, 'sub', {'items': items, 'src': s.name, 'salias': 's%d' % si,
                                      'where': wname})
        sd.names = [a for _, a in items]
        sd.cols = [Col('%s.%s' % (alias, a), xx.ty, xx.mag, xx.inexact, xx.sc) for xx, a in items]
        sd.one_row = True
        return sd
    if allow_sub and x < 0.14:
        # aggregate per key: an updating (upsert) input of the join
        inner = w.scope(si, 's%d' % si, exclude_et=True)
        g = w.gen(inner)
        keys = [c for c in inner if c.name.split('.')[-1] in ('k1', 'k2')]
        keys = keys[:1] if r.random() < 0.6 else keys
        items = [(c.x(), c.name.split('.')[-1]) for c in keys]
        _, aggs = agg_items(r, g, [c.x() for c in keys], w.case.nrows, s.schema, r.randint(1, 2))
        items += [(a, 'v%d' % (i + 1)) for i, a in enumerate(aggs)]
        wname = 'sub_%s_where' % alias
        q.slots[wname] = g.expr('bool', 1, need_col=True) if r.random() < 0.4 else None
        q.optional.add(wname)
        sd = Side(si, alias, 'sub', {'items': items, 'src': s.name, 'salias': 's%d' % si,
                                      'where': wname, 'group': [c.x() for c in keys]})
        sd.names = [a for _, a in items]
        sd.cols = [Col('%s.%s' % (alias, a), xx.ty, xx.mag, xx.inexact, xx.sc) for xx, a in items]
        return sd
    if allow_sub and x < 0.25:
        inner = w.scope(si, 's%d' % si, exclude_et=exclude_et)
        g = w.gen(inner)
        keep = [c for c in inner if r.random() < 0.7 or c.name.split('.')[-1] in ('id', 'k1', 'k2', 'et')]
        items = [(c.x(), c.name.split('.')[-1]) for c in keep]
        if r.random() < 0.3:
            items.append((g.expr(g.pick_cat(['int', 'text', 'numeric']), 1, need_col=True), 'e1'))
        wname = 'sub_%s_where' % alias
        q.slots[wname] = g.expr('bool', r.randint(1, 2), need_col=True)
        q.optional.add(wname)
        sd = Side(si, alias, 'sub', {'items': items, 'src': s.name, 'salias': 's%d' % si,
                                      'where': wname})
        sd.names = [a for _, a in items]
        sd.cols = [Col('%s.%s' % (alias, a), xx.ty, xx.mag, xx.inexact, xx.sc) for xx, a in items]
        return sd
    default = (alias == s.short and r.random() < 0.3)
    sd = Side(si, alias, 'srcd' if default else 'src')
    sd.cols = w.scope(si, alias, exclude_et=exclude_et)
    sd.names = [c['name'] for c in s.cols if not (exclude_et and c['name'] == s.et)]
    return sd


def key_pairs(r, left_sides, sd, allow_expr=True):
    """Equi pairs between one of the left sides and sd over the shared key columns."""
    common = []
    for ls in left_sides:
        for k in ('k1', 'k2'):
            if k in ls.names and k in sd.names:
                common.append((ls, k))
    if not common:
        return []
    r.shuffle(common)
    n = 1 if len(common) == 1 or r.random() < 0.6 else 2
    pairs = []
    used = set()
    for ls, k in common:
        if k in used or len(pairs) >= n:
            continue
        used.add(k)
        a, b = '%s.%s' % (ls.alias, k), '%s.%s' % (sd.alias, k)
        if allow_expr and r.random() < 0.1:
            if k == 'k2':
                a, b = 'lower(%s)' % a, 'lower(%s)' % b
            else:
                a = 'CAST(%s AS bigint)' % a if r.random() < 0.5 else '(%s + 0)' % a
        op = '='
        if r.random() < 0.1:
            op = 'IS NOT DISTINCT FROM'   # NULL keys match: not an equality key
        pairs.append((a, b, op))
    return pairs


def gen_join(case, r, qr, interval=False):
    nsrc = 2 if interval or r.random() < 0.7 else 3
    if interval:
        w = World(r, case, 2, 'bounded', [False, False])
    else:
        w = World(r, case, nsrc, 'mixed', r.choice([0.0, 0.5, 0.5, 1.0]))
    case.sources = w.sources
    case.events = w.events
    r = w.r = qr
    q = JoinQ()
    q.family = 'interval' if interval else 'join'
    q.names = [s.name for s in w.sources]
    excl = w.time_mode == 'free'
    aliases = ['a', 'b', 'c']
    q.sides.append(make_side(w, r, q, 0, aliases[0], allow_sub=not interval, exclude_et=excl))
    shape = []
    for i in range(1, nsrc):
        extra = None
        si = i
        if not interval and i == 1 and r.random() < 0.08:
            si = 0   # a self-join
            shape.append('self')
        sd = make_side(w, r, q, si, aliases[i], allow_sub=not interval, exclude_et=excl)
        jt = r.choice(JOIN_TYPES)
        pairs = key_pairs(r, q.sides, sd)
        mode = 'on'
        x = r.random()
        if interval:
            if r.random() < 0.15:
                pairs = []
            mode = 'comma' if (jt in ('JOIN', 'INNER JOIN') and r.random() < 0.3 and i == nsrc - 1) else 'on'
        elif x < 0.2:
            common = [k for k in ('k1', 'k2') if k in sd.names and all(k in ls.names for ls in q.sides)
                      and not any(k in j.using for j in q.joins)]
            # USING names a column of the left input: with an earlier USING join it is merged
            if i == 2 and q.joins[0].mode == 'using' and r.random() < 0.6:
                # the first USING merged these into one column: USING again
                common = [k for k in q.joins[0].using if k in sd.names]
            if common and (i == 1 or q.joins[0].mode == 'using' and set(common) <= set(q.joins[0].using)):
                mode = 'using'
                n = 1 if len(common) == 1 or r.random() < 0.6 else 2
                pairs = []
                using = r.sample(common, n)
        elif x < 0.25 and i == 1 and sd.kind != 'sub' and q.sides[0].kind != 'sub':
            mode = 'natural'
        elif x < 0.35 and pairs and i == nsrc - 1:
            mode = 'comma'   # (a comma binds looser than JOIN: only as the last item)
        if not pairs and mode in ('on', 'comma') and not interval:
            k = 'k1'
            pairs = [('%s.%s' % (q.sides[0].alias, k), '%s.%s' % (sd.alias, k), '=')] \
                if k in sd.names and k in q.sides[0].names else []
            if not pairs:
                mode = 'on'
        if sd.one_row:
            mode, pairs = 'cross', []
        elif not interval and mode == 'on' and r.random() < 0.06 and 'k2' in sd.names and \
                'k2' in q.sides[0].names and not jt.startswith('FULL'):
            # no equality key at all: a filtered cross product
            pairs = []
            extra = '(%s.k1 = %s.k1 OR %s.k2 = %s.k2)' % (q.sides[0].alias, sd.alias, q.sides[0].alias, sd.alias)
        if not any(p[2] == '=' for p in pairs) and mode not in ('using', 'natural') and jt.startswith('FULL'):
            jt = 'LEFT JOIN'  # PostgreSQL runs FULL JOIN only with an equality condition
        j = JoinSpec(jt if mode != 'comma' else ',', mode, pairs, using if mode == 'using' else (),
                     right_first=r.random() < 0.3)
        if interval:
            j.interval = interval_cond(r, q.sides[0].alias, sd.alias)
        elif not pairs and mode == 'on' and extra:
            j.interval = extra
        if mode != 'natural' and r.random() < (0.3 if not interval else 0.2):
            scope = [c for s2 in q.sides + [sd] for c in s2.cols]
            g = w.gen(scope)
            j.res = 'res%d' % i
            q.slots[j.res] = g.expr('bool', r.randint(1, 2), need_col=True)
            q.optional.add(j.res)
        if mode == 'comma' and not pairs and not j.interval:
            mode = j.mode = 'on'
            j.jtype = 'JOIN'
        q.joins.append(j)
        q.sides.append(sd)
        shape.append(('natural ' if mode == 'natural' else '') + ('no-key ' if extra else '') +
                     (j.jtype if mode not in ('comma', 'cross') else mode)
                     .lower().replace(' outer', '').replace('inner ', '') +
                     (' using' if mode == 'using' else '') + (' sub' if sd.kind == 'sub' else ''))
    # the scope above the join
    scope = [c for sd in q.sides for c in sd.cols]
    for j in q.joins:
        if j.mode == 'using':
            for k in j.using:
                if any(k in sd.names for sd, j2 in zip(q.sides[2:], q.joins[1:])
                       if not (j2.mode == 'using' and k in j2.using)):
                    continue  # a later input's column of that name makes it ambiguous
                if any(c.name == k for c in scope):
                    continue
                ty = 'numeric' if any(c.name.endswith('.' + k) and c.ty == 'numeric' for c in scope) else \
                    [c.ty for c in scope if c.name.endswith('.' + k)][0]
                scope.append(Col(k, ty, 100, sc=1 if ty == 'numeric' else 0))
    g = w.gen(scope)
    upd = any(s.updating for s in w.sources)
    x = r.random()
    nrows_bound = case.nrows * case.nrows
    if x < 0.4 or nsrc == 3 and x < 0.7:
        keys = group_keys(r, g, scope, r.choice([1, 1, 2]), prefer=('k1', 'k2'))
        q.group = keys
        ag, aggs = agg_items(r, g, keys, nrows_bound, w.sources[0].schema)
        items = [k for k in keys if r.random() < 0.9] + aggs
        q.items = [(it, 'c%d' % (i + 1)) for i, it in enumerate(items)]
        if r.random() < 0.25:
            q.slots['having'] = ag.expr('bool', 1, need_col=True)
            q.optional.add('having')
        shape.append('grouped')
    elif x < 0.5 and not interval:
        # a global aggregate over the join
        q.group = []
        ag, aggs = agg_items(r, g, [], nrows_bound, w.sources[0].schema)
        q.items = [(it, 'c%d' % (i + 1)) for i, it in enumerate(aggs)]
        shape.append('global-agg')
    else:
        distinct = r.random() < 0.15
        items = []
        if not distinct and r.random() < 0.7:
            items += [Col('%s.id' % sd.alias, 'bigint', 10 ** 6).x() for sd in q.sides
                      if 'id' in sd.names and r.random() < 0.7]
        items += pick_items(g, r, r.randint(1, 4), exact=distinct)
        q.items = [(it, 'c%d' % (i + 1)) for i, it in enumerate(items)]
        q.distinct = distinct
        shape.append('distinct' if distinct else 'plain')
    if r.random() < 0.45:
        q.slots['where'] = g.expr('bool', r.randint(1, 2), need_col=True)
        q.optional.add('where')
    outer = [(j, sd) for j, sd in zip(q.joins, q.sides[1:]) if j.jtype.startswith('LEFT') and 'id' in sd.names]
    if outer and r.random() < 0.15:
        # the anti-join pattern: rows of the left input without a match
        j, sd = r.choice(outer)
        q.slots['anti'] = X('boolean', raw='%s.id IS NULL' % sd.alias, mag=0)
        q.optional.add('anti')
        shape.append('anti-join pattern')
    case.label = '%s:%s%s' % (q.family, ', '.join(shape), ' (updating)' if upd else '')
    case.models = wrap_upstream(case, r, q)


def interval_cond(r, la, ra):
    """A time bound between the event times of the two inputs: both a lower and an upper
    bound (weir then frees the join state by watermark)."""
    lo = r.choice([0, 1, 2, 5, 10, 30])
    hi = r.choice([0, 1, 3, 5, 10])
    unit = r.choice(['SECOND', 'SECOND', 'MINUTE']) if lo % 60 == 0 and hi % 60 == 0 and lo and hi else 'SECOND'
    lo_s = "INTERVAL '%d' SECOND" % lo
    hi_s = "INTERVAL '%d' SECOND" % hi
    if unit == 'MINUTE':
        lo_s, hi_s = "INTERVAL '%d' MINUTE" % (lo // 60), "INTERVAL '%d' MINUTE" % (hi // 60)
    a, b = (la, ra) if r.random() < 0.6 else (ra, la)
    x = r.random()
    if x < 0.5:
        return '%s.et BETWEEN %s.et - %s AND %s.et + %s' % (a, b, lo_s, b, hi_s)
    if x < 0.75:
        return '%s.et >= %s.et - %s AND %s.et < %s.et + %s' % (a, b, lo_s, a, b, hi_s)
    return '%s.et > %s.et - %s AND %s.et <= %s.et + %s' % (a, b, lo_s, a, b, hi_s)


class Wrapped(FQ):
    """A model that reads an upstream model: SELECT items FROM ref('m1') [WHERE]."""

    def __init__(self, name):
        super().__init__()
        self.name = name

    def sql(self, pg):
        t = 'SELECT %s FROM %s' % (self.items_sql(), ref(self.name))
        if self.s('where'):
            t += ' WHERE ' + self.s('where')
        return t


def wrap_upstream(case, r, q):
    """Usually the query is the final model; sometimes it becomes an upstream model
    (view or ephemeral) read through ref() by a projection/filter."""
    if r.random() < 0.85 or getattr(q, 'order', None) or not q.items:
        return [(D.FINAL_MODEL, q, 'retract')]
    up = Wrapped('m1')
    cols = out_cols(q.items)
    g = Gen(r, cols, case.nrows, case.sources[0].schema)
    items = [c.x() for c in cols if r.random() < 0.8] or [cols[0].x()]
    if r.random() < 0.3:
        items.append(g.expr(g.pick_cat(['int', 'text']), 1, need_col=True))
    up.items = [(it, 'd%d' % (i + 1)) for i, it in enumerate(items)]
    if r.random() < 0.5:
        up.slots['where'] = g.expr('bool', 1, need_col=True)
        up.optional.add('where')
    case.label += ' via ref'
    return [('m1', q, r.choice(['view', 'ephemeral'])), (D.FINAL_MODEL, up, 'retract')]


# ----------------------------------------------------------------------------------------
# Subqueries in WHERE (semi / anti joins, scalar aggregates) and in the select list.

class SubQ(FQ):
    family = 'subquery'

    def __init__(self):
        super().__init__()
        self.outer = ''        # FROM text of the outer relation
        self.conds = []        # slot names of the WHERE conjuncts
        self.group = None

    def sql(self, pg):
        t = 'SELECT %s FROM %s' % (self.items_sql(), self.outer)
        w = conj([self.s(c) for c in self.conds])
        if w:
            t += ' WHERE ' + w
        if self.group:
            t += ' GROUP BY ' + ', '.join(x.sql() for x in self.group)
        if self.s('having'):
            t += ' HAVING ' + self.s('having')
        return t


def sub_filter(w, r, si, alias, p=0.5):
    g = w.gen(w.scope(si, alias))
    return g.expr('bool', r.randint(1, 2), need_col=True) if r.random() < p else None


def subquery_cond(w, r, outer_alias, outer_cols, si, n):
    """One WHERE conjunct with a subquery over source si, as an X node whose kids are
    the outer expression, and the subquery's filter (so the minimiser can simplify it)."""
    s = w.sources[si]
    ia = 'i%d' % n
    kind = r.choice(['in', 'in', 'not in', 'exists', 'not exists', 'not exists', 'scalar', 'scalar'])
    keys = [k for k in ('k1', 'k2') if w.has(si, k) and any(c.name.endswith('.' + k) for c in outer_cols)]
    filt = sub_filter(w, r, si, ia, 0.5)
    fkid = [filt] if filt is not None else []
    S = src(s.name)
    if kind in ('in', 'not in') and keys:
        k = r.choice(keys)
        oc = [c for c in outer_cols if c.name.endswith('.' + k)][0].x()
        if r.random() < 0.12:
            oc = X(oc.ty, '({0} + 1)', [oc], mag=oc.mag + 1) if k == 'k1' else X('text', 'lower({0})', [oc])
        conds = []
        other = [kk for kk in keys if kk != k]
        corr = other and r.random() < 0.3
        if corr:
            conds.append('%s.%s = %s.%s' % (ia, other[0], outer_alias, other[0]))
        if filt is not None:
            conds.append('{1}')
        where = (' WHERE ' + ' AND '.join(conds)) if conds else ''
        sel = '%s.%s' % (ia, k)
        tail = ''
        shape = kind
        if not corr and r.random() < 0.25:
            # an uncorrelated subquery may aggregate or deduplicate
            if r.random() < 0.5:
                tail = ' GROUP BY %s HAVING count(*) > %d' % (sel, r.choice([1, 1, 2]))
                shape += ' grouped'
            else:
                sel = 'DISTINCT ' + sel
                shape += ' distinct'
        op = 'NOT IN' if kind == 'not in' else 'IN'
        if r.random() < 0.25:
            op = '<> ALL' if kind == 'not in' else '= ANY'
            shape = shape.replace('not in', '<> all').replace('in', '= any')
        tmpl = '({0} %s (SELECT %s FROM %s %s%s%s))' % (op, sel, S, ia, where, tail)
        return X('boolean', tmpl, [oc] + fkid, mag=0), shape + (' corr' if corr else '')
    if kind in ('exists', 'not exists') and keys:
        ks = r.sample(keys, 1 if len(keys) == 1 or r.random() < 0.6 else 2)
        eqs = []
        for k in ks:
            a, b = '%s.%s' % (ia, k), '%s.%s' % (outer_alias, k)
            eqs.append('%s = %s' % ((a, b) if r.random() < 0.7 else (b, a)))
        tmpl = '(%sEXISTS (SELECT 1 FROM %s %s WHERE %s%s))' % (
            'NOT ' if kind == 'not exists' else '', S, ia, ' AND '.join(eqs), ' AND {0}' if fkid else '')
        return X('boolean', tmpl, fkid, mag=0), kind
    # uncorrelated scalar aggregate
    g = w.gen(w.scope(si, ia))
    ag = AggGen(r, g, [], w.case.nrows, s.schema)
    for _ in range(20):
        cat = r.choice(['int', 'int', 'numeric', 'text', 'ts'])
        if cat == 'ts' and not any(c.ty == 'timestamp' for c in outer_cols):
            continue
        a = ag.agg_call(cat, exact=True)
        if a is None or a.inexact:
            continue
        oc = [c for c in outer_cols if cat_of(c.ty) == cat or (cat in ('int', 'numeric') and cat_of(c.ty) in ('int', 'numeric'))]
        if not oc:
            continue
        o = r.choice(oc).x()
        op = r.choice(['=', '<', '<=', '>', '>=', '<>'])
        kids = [o, a] + fkid
        ftxt = ' WHERE {2}' if filt is not None else ''
        tmpl = '({0} %s (SELECT {1} FROM %s %s%s))' % (op, S, ia, ftxt)
        return X('boolean', tmpl, kids, mag=0), 'scalar'
    return None, None


def gen_subquery(case, r, qr):
    nsrc = 2 if r.random() < 0.7 else 3
    w = World(r, case, nsrc, 'mixed', r.choice([0.0, 0.5, 1.0]))
    case.sources = w.sources
    case.events = w.events
    r = w.r = qr
    q = SubQ()
    oa = 'a'
    q.outer = '%s %s' % (src(w.sources[0].name), oa) if r.random() < 0.7 else src(w.sources[0].name, True)
    cols = w.scope(0, oa, exclude_et=w.time_mode == 'free')
    g = w.gen(cols)
    kinds = []
    n = r.randint(1, 2)
    for i in range(n):
        si = r.randint(1, nsrc - 1) if r.random() < 0.85 else 0
        x, kind = subquery_cond(w, r, oa, cols, si, i + 1)
        if x is None:
            continue
        name = 'sq%d' % (i + 1)
        q.slots[name] = x
        q.conds.append(name)
        kinds.append(kind + ('(self)' if si == 0 else ''))
    if r.random() < 0.4 or not q.conds:
        q.slots['w'] = g.expr('bool', r.randint(1, 2), need_col=True)
        q.conds.append('w')
        q.optional.add('w')
    q.optional.update(q.conds[1:] if len(q.conds) > 1 else [])
    if r.random() < 0.35:
        keys = group_keys(r, g, cols, r.choice([1, 2]), prefer=('k1', 'k2'))
        q.group = keys
        ag, aggs = agg_items(r, g, keys, case.nrows, w.sources[0].schema)
        q.items = [(it, 'c%d' % (i + 1)) for i, it in enumerate(keys + aggs)]
        kinds.append('grouped')
    else:
        items = [Col('a.id', 'bigint', 10 ** 6).x()] if r.random() < 0.6 else []
        items += pick_items(g, r, r.randint(1, 3))
        if r.random() < 0.2:
            # an uncorrelated scalar aggregate in the select list
            si = r.randint(1, nsrc - 1)
            gi = w.gen(w.scope(si, 'j'))
            ag = AggGen(r, gi, [], case.nrows, w.sources[si].schema)
            a = ag.agg_call(r.choice(['int', 'numeric', 'text']), exact=True)
            if a is not None and not a.inexact:
                sq = X(a.ty, '(SELECT {0} FROM %s j)' % src(w.sources[si].name), [a])
                num = [c for c in cols if cat_of(c.ty) in ('int', 'numeric')]
                if cat_of(a.ty) in ('int', 'numeric') and num and r.random() < 0.5:
                    o = r.choice(num).x()
                    ty = 'numeric' if 'numeric' in (a.ty, o.ty) else 'bigint'
                    sq = X(ty, '({0} - {1})', [o, sq], mag=o.mag + a.mag)
                items.append(sq)
                kinds.append('scalar-select')
        q.items = [(it, 'c%d' % (i + 1)) for i, it in enumerate(items)]
    case.label = 'subquery:%s%s' % (', '.join(kinds), ' (updating)' if any(s.updating for s in w.sources) else '')
    case.models = [(D.FINAL_MODEL, q, 'retract')]


# ----------------------------------------------------------------------------------------
# Event-time windows.

EPOCH_PG = "TIMESTAMP '1970-01-01 00:00:00'"


def dur_pg(us):
    return "INTERVAL '%d microseconds'" % us


def dur_weir(r, us, bare_ok=True):
    s = us // SEC
    forms = []
    if us % SEC == 0:
        forms += ["INTERVAL '%d' SECOND" % s, "INTERVAL '%d seconds'" % s, "INTERVAL '%d second'" % s]
        if s % 60 == 0:
            forms += ["INTERVAL '%d' MINUTE" % (s // 60), "INTERVAL '%d minutes'" % (s // 60)]
        if bare_ok:
            forms.append("'%d seconds'" % s)
        if s >= 60:
            forms.append("INTERVAL '%02d:%02d:%02d'" % (s // 3600, s % 3600 // 60, s % 60))
    else:
        forms += ["INTERVAL '%d milliseconds'" % (us // 1000)]
    return r.choice(forms)


class WinQ(FQ):
    family = 'window'

    def __init__(self):
        super().__init__()
        self.kind = 'TUMBLE'
        self.size = self.slide = self.gap = 0
        self.args_weir = ''
        self.rel = ''            # weir relation text (marker, CTE name)
        self.rel_pg = ''         # PostgreSQL relation text
        self.alias = None        # explicit alias of the TVF
        self.name = 'a'          # the alias in force (explicit or default)
        self.tcol = 'et'
        self.tcol_weir = 'et'
        self.ctes = []           # [(name, CteQ)]
        self.group = None        # None: no aggregate; else the non-window keys (X)
        self.wkeys = []          # 'window_start' / 'window_end' (qualified or not) in GROUP BY
        self.skeys = []          # SESSION: column names of the non-window keys
        self.late = False        # PostgreSQL drops the (row, window) pairs weir finds late

    def with_sql(self, pg):
        if not self.ctes:
            return ''
        return 'WITH ' + ', '.join('%s AS (%s)' % (n, c.sql(pg)) for n, c in self.ctes) + ' '

    def late_count_sql(self):
        """PostgreSQL: how many (row, window) pairs weir must find late."""
        t = 'SELECT count(*) FROM ' + self.tvf_pg(only_late=True)
        if self.s('where'):
            t += ' WHERE ' + self.s('where')
        return self.with_sql(True) + t

    def tvf_pg(self, only_late=False):
        a = self.name
        t = 'x.%s' % self.tcol
        if self.kind == 'TUMBLE':
            b = 'date_bin(%s, %s, %s)' % (dur_pg(self.size), t, EPOCH_PG)
            late = (' WHERE x.__wm IS NULL OR %s + %s > x.__wm' % (b, dur_pg(self.size))) if self.late else ''
            if only_late:
                late = ' WHERE x.__wm IS NOT NULL AND %s + %s <= x.__wm' % (b, dur_pg(self.size))
            return ('(SELECT x.*, %s AS window_start, %s + %s AS window_end FROM %s x%s) AS %s'
                    % (b, b, dur_pg(self.size), self.rel_pg, late, a))
        if self.kind == 'HOP':
            b = 'date_bin(%s, %s, %s)' % (dur_pg(self.slide), t, EPOCH_PG)
            late = (' WHERE x.__wm IS NULL OR g.ws + %s > x.__wm' % dur_pg(self.size)) if self.late else ''
            if only_late:
                late = ' WHERE x.__wm IS NOT NULL AND g.ws + %s <= x.__wm' % dur_pg(self.size)
            return ('(SELECT x.*, g.ws AS window_start, g.ws + %s AS window_end FROM %s x '
                    'CROSS JOIN LATERAL generate_series(%s - %s, %s, %s) AS g(ws)%s) AS %s'
                    % (dur_pg(self.size), self.rel_pg, b, dur_pg(self.size - self.slide), b,
                       dur_pg(self.slide), late, a))
        # SESSION: gaps and islands per key over the filtered rows; a new session starts
        # where the gap to the previous row of the key is at least `gap` (RANGE sums give
        # rows with equal times one session whatever order lag() saw them in)
        part = ', '.join('s1.%s' % k for k in self.skeys)
        part0 = ', '.join('x.%s' % k for k in self.skeys)
        part2 = ', '.join(['s2.%s' % k for k in self.skeys] + ['s2.__sid'])
        inner = 'SELECT * FROM %s AS %s' % (self.rel_pg, a)
        if self.s('where'):
            inner += ' WHERE ' + self.s('where')
        g = dur_pg(self.gap)
        return ('(SELECT s2.*, min(s2.{t}) OVER (PARTITION BY {p2}) AS window_start, '
                'max(s2.{t}) OVER (PARTITION BY {p2}) + {g} AS window_end FROM '
                '(SELECT s1.*, sum(CASE WHEN s1.__prev IS NULL OR s1.{t} - s1.__prev >= {g} THEN 1 ELSE 0 END) '
                'OVER ({pp}ORDER BY s1.{t} RANGE UNBOUNDED PRECEDING) AS __sid FROM '
                '(SELECT x.*, lag(x.{t}) OVER ({p0}ORDER BY x.{t}) AS __prev FROM ({inner}) x) s1) s2) AS {a}'
                .format(t=self.tcol, p2=part2, g=g, pp=('PARTITION BY %s ' % part) if part else '',
                        p0=('PARTITION BY %s ' % part0) if part0 else '', inner=inner, a=a))

    def sql(self, pg):
        t = self.with_sql(pg) + 'SELECT ' + self.items_sql() + ' FROM '
        if pg:
            t += self.tvf_pg()
        else:
            if getattr(self, 'flink', False):
                t += 'TABLE(%s(TABLE %s, DESCRIPTOR(%s), %s))' % (self.kind, self.rel,
                                                                  self.tcol_weir.replace('DESCRIPTOR(', '').rstrip(')'),
                                                                  self.args_weir)
            else:
                t += '%s(%s, %s, %s)' % (self.kind, self.rel, self.tcol_weir, self.args_weir)
            if self.alias:
                t += ' AS ' + self.alias
        if self.s('where') and not (pg and self.kind == 'SESSION'):
            t += ' WHERE ' + self.s('where')
        if self.group is not None:
            keys = self.wkeys + [x.sql() for x in self.group]
            t += ' GROUP BY ' + ', '.join(keys)
        if self.s('having'):
            t += ' HAVING ' + self.s('having')
        return t

    def variants(self):
        out = super().variants()
        for i, (n, c) in enumerate(self.ctes):
            for cv in c.variants():
                v = copy.deepcopy(self)
                v.ctes[i] = (n, cv)
                out.append(v)
        return out


class CteQ(FQ):
    """WITH f AS (SELECT cols FROM source WHERE ...): keeps the event time column."""

    def __init__(self, source):
        super().__init__()
        self.source = source

    def sql(self, pg):
        t = 'SELECT %s FROM %s' % (self.items_sql(), src(self.source, True))
        if self.s('where'):
            t += ' WHERE ' + self.s('where')
        return t


def window_args(r, q, kind, span):
    q.kind = kind
    unit = SEC if r.random() < 0.85 else 250000
    size_choices = [u for u in (2, 3, 5, 10, 15, 30, 60, 120, 300) if u * SEC <= span // 2] or [2]
    if kind == 'TUMBLE':
        q.size = r.choice(size_choices) * SEC if unit == SEC else r.choice([2, 3, 6]) * unit
        q.args_weir = dur_weir(r, q.size)
    elif kind == 'HOP':
        q.slide = r.choice(size_choices[:5]) * SEC if unit == SEC else r.choice([2, 4]) * unit
        q.size = q.slide * r.choice([1, 2, 3, 4])
        q.args_weir = '%s, %s' % (dur_weir(r, q.slide), dur_weir(r, q.size))
    else:
        q.gap = r.choice([1, 2, 3, 5, 10, 30]) * SEC if unit == SEC else r.choice([2, 3, 6]) * unit
        q.args_weir = dur_weir(r, q.gap)


def make_winq(w, r, si, kind, models, shape, rel=None, plain_ok=True, need_end=False, late=False):
    """A window query over source si (or rel = (weir text, PostgreSQL text, name, cols,
    time column) for an upstream model). need_end: an aggregate whose output carries
    window_end (as ts) for a window over it downstream."""
    s = w.sources[si]
    q = WinQ()
    window_args(r, q, kind, max(w.clock.span, SEC))
    cols = [Col(c['name'], c['ty'], c.get('mag', 0), sc=c.get('sc', 0)) for c in s.cols]
    x = r.random()
    relkind = 'source'
    if rel is not None:
        q.rel, q.rel_pg, q.name, cols, q.tcol = rel
        q.tcol_weir = q.tcol
        relkind = 'window'
    elif not late and (x < 0.2 or x < 0.3 and kind != 'SESSION'):
        cte = CteQ(s.name)
        keep = [c for c in cols if c.name in ('id', 'k1', 'k2', 'et') or r.random() < 0.7]
        rename = r.random() < 0.3
        items = []
        for c in keep:
            items.append((c.x(), 'evt' if (c.name == 'et' and rename) else c.name))
        g0 = w.gen(cols)
        if r.random() < 0.3:
            items.append((g0.expr(g0.pick_cat(['int', 'numeric', 'text']), 1, need_col=True), 'e1'))
        cte.items = items
        cte.keep_items = {a for _, a in items if a in ('evt', 'et', 'k1', 'k2', 'id')}
        cte.slots['where'] = g0.expr('bool', r.randint(1, 2), need_col=True) if r.random() < 0.6 else None
        cte.optional.add('where')
        cols = out_cols(items)
        q.tcol = q.tcol_weir = 'evt' if rename else 'et'
        if r.random() < 0.5:
            q.ctes = [('f', cte)]
            q.rel = q.rel_pg = 'f'
            q.name = 'f'
            relkind = 'cte'
        else:
            mname = 'm%d' % len(models)
            models.append((mname, cte, r.choice(['view', 'ephemeral'])))
            q.rel, q.rel_pg = ref(mname), mname
            q.name = mname
            relkind = 'ref'
    else:
        q.rel, q.rel_pg = src(s.name), 't_' + s.short
        q.name = s.short
    if r.random() < 0.3 and not need_end:
        q.alias = q.name = 'w'
    if r.random() < 0.2:
        q.tcol_weir = 'DESCRIPTOR(%s)' % q.tcol
    qual = q.name if r.random() < 0.3 else None
    scope = [Col((qual + '.' + c.name) if qual else c.name, c.ty, c.mag, c.inexact, c.sc) for c in cols]
    g = w.gen(scope)
    ws = X('timestamp', raw=(qual + '.' if qual else '') + 'window_start', mag=0, iscol=True)
    we = X('timestamp', raw=(qual + '.' if qual else '') + 'window_end', mag=0, iscol=True)
    shape += [kind.lower(), relkind]
    y = r.random()
    if kind != 'SESSION' and y < 0.12 and plain_ok and not late:
        # a plain projection of the windowed rows (stateless)
        items = [c.x() for c in scope if c.name.split('.')[-1] == 'id'][:1]
        items += [ws, we] if r.random() < 0.7 else [r.choice([ws, we])]
        items += pick_items(g, r, r.randint(0, 2))
        q.items = [(it, 'c%d' % (i + 1)) for i, it in enumerate(items)]
        shape.append('plain')
    else:
        if kind == 'SESSION' or need_end:
            wk = [ws, we]
        elif y < 0.2 and not late:
            wk = []       # grouped by other columns only: an ordinary aggregate
            shape.append('non-window group')
        else:
            wk = r.choice([[ws, we], [ws, we], [ws], [we]])
        ncand = [c for c in scope if not c.inexact and c.name.split('.')[-1] not in (q.tcol, 'id')]
        keys = []
        nk = r.choice([0, 1, 1, 2]) if wk else r.choice([1, 2])
        pref = [c for c in ncand if c.name.split('.')[-1] in ('k1', 'k2')]
        for _ in range(nk):
            pool = pref if pref and r.random() < 0.7 else ncand
            if not pool:
                break
            c = r.choice(pool)
            if all(c.name != k.sql() for k in keys):
                keys.append(c.x())
        if not wk and not keys:
            wk = [ws, we]
        q.wkeys = [x.sql() for x in wk]
        q.group = keys
        q.skeys = [k.sql().split('.')[-1] for k in keys]
        ag, aggs = agg_items(r, g, keys, w.case.nrows * 4, s.schema)
        if need_end:
            items = [we] + keys + aggs
            q.items = [(we, 'ts')] + [(it, 'c%d' % (i + 1)) for i, it in enumerate(keys + aggs)]
            q.keep_items = {'ts'} | {'c%d' % (i + 1) for i in range(len(keys))}
        else:
            items = list(wk) if r.random() < 0.9 else wk[:1]
            items += [k for k in keys if r.random() < 0.85] + aggs
            q.items = [(it, 'c%d' % (i + 1)) for i, it in enumerate(items)]
        if r.random() < 0.2:
            q.slots['having'] = ag.expr('bool', 1, need_col=True)
            q.optional.add('having')
        shape.append('keys=%d' % len(keys))
    if r.random() < 0.45:
        # a filter between the window and the aggregate (never on the window bounds)
        q.slots['where'] = g.expr('bool', r.randint(1, 2), need_col=True)
        q.optional.add('where')
    q.late = late
    return q


class WJoinQ(FQ):
    """A window join: two window aggregates (WITH queries) joined on their window bounds
    and a key."""
    family = 'window'

    def __init__(self):
        super().__init__()
        self.ctes = []
        self.jtype = 'JOIN'
        self.on = []

    def sql(self, pg):
        t = 'WITH ' + ', '.join('%s AS (%s)' % (n, c.sql(pg)) for n, c in self.ctes) + ' '
        t += 'SELECT %s FROM x %s y ON %s' % (self.items_sql(), self.jtype, ' AND '.join(self.on))
        if self.s('where'):
            t += ' WHERE ' + self.s('where')
        return t

    def variants(self):
        out = super().variants()
        for i, (n, c) in enumerate(self.ctes):
            for cv in c.variants():
                if any(a not in [a2 for _, a2 in cv.items] for a in ('c1', 'c2')):
                    continue
                v = copy.deepcopy(self)
                v.ctes[i] = (n, cv)
                out.append(v)
        return out


def gen_window(case, r, qr):
    upd = r.random() < 0.3
    nsrc = 2 if r.random() < 0.25 else 1
    late = r.random() < 0.15
    if late:
        nsrc, upd = 1, False
    w = World(r, case, nsrc, 'late' if late else 'bounded', [upd, r.random() < 0.3], nvalue=(1, 4),
              kdiv=(15, 40, 100))
    case.sources = w.sources
    case.events = w.events
    r = w.r = qr
    s = w.sources[0]
    models = []
    shape = []
    x = r.random()
    if late:
        kind = r.choice(['TUMBLE', 'TUMBLE', 'HOP'])
        q = make_winq(w, r, 0, kind, models, shape, plain_ok=False, late=True)
        shape.append('late rows')
    elif nsrc == 2 and x < 0.5:
        # window join: the same windows on both sides, grouped by the bounds and k1
        q = WJoinQ()
        kind = r.choice(['TUMBLE', 'TUMBLE', 'HOP'])
        sides = []
        for si, name in ((0, 'x'), (1, 'y')):
            wq = WinQ()
            window_args(r, wq, kind, max(w.clock.span, SEC))
            if sides:
                wq.size, wq.slide, wq.args_weir = sides[0].size, sides[0].slide, sides[0].args_weir
            src_ = w.sources[si]
            wq.rel, wq.rel_pg, wq.name = src(src_.name), 't_' + src_.short, src_.short
            scope = [Col(c['name'], c['ty'], c.get('mag', 0), sc=c.get('sc', 0)) for c in src_.cols]
            g = w.gen(scope)
            ws = X('timestamp', raw='window_start', mag=0, iscol=True)
            we = X('timestamp', raw='window_end', mag=0, iscol=True)
            k1 = X(w.coltype(si, 'k1'), raw='k1', mag=100, iscol=True)
            wq.wkeys = ['window_start', 'window_end']
            wq.group = [k1]
            ag, aggs = agg_items(r, g, [k1], case.nrows * 4, src_.schema, r.randint(1, 2))
            wq.items = [(ws, 'c1'), (we, 'c2'), (k1, 'c3')] + [(a, 'v%d' % (i + 1)) for i, a in enumerate(aggs)]
            wq.keep_items = {'c1', 'c2', 'c3'}
            if r.random() < 0.3:
                wq.slots['where'] = g.expr('bool', 1, need_col=True)
                wq.optional.add('where')
            sides.append(wq)
            q.ctes.append((name, wq))
        q.jtype = r.choice(['JOIN', 'JOIN', 'LEFT JOIN', 'FULL JOIN'])
        q.on = ['x.c1 = y.c1', 'x.c2 = y.c2', 'x.c3 = y.c3']
        if r.random() < 0.3:
            q.on = q.on[:1] + q.on[2:]   # window_start alone identifies the window
        cols = [Col('x.' + a, xx.ty, xx.mag, xx.inexact, xx.sc) for xx, a in sides[0].items] + \
               [Col('y.' + a, xx.ty, xx.mag, xx.inexact, xx.sc) for xx, a in sides[1].items]
        items = [cc.x() for cc in cols if r.random() < 0.6] or [cols[0].x()]
        q.items = [(it, 'c%d' % (i + 1)) for i, it in enumerate(items)]
        shape += ['window join', kind.lower(), q.jtype.lower()]
    elif r.random() < 0.2:
        # a window over a window: the first aggregate's window_end is the second's time
        k1 = r.choice(['TUMBLE', 'TUMBLE', 'HOP'])
        m1 = make_winq(w, r, 0, k1, models, shape, plain_ok=False, need_end=True)
        mname = 'm%d' % len(models)
        models.append((mname, m1, r.choice(['view', 'view', 'ephemeral'])))
        cols = out_cols(m1.items)
        k2 = r.choice(['TUMBLE', 'HOP', 'SESSION'])
        shape.append('then')
        q = make_winq(w, r, 0, k2, models, shape, rel=(ref(mname), mname, mname, cols, 'ts'))
    else:
        kind = r.choice(['TUMBLE', 'TUMBLE', 'HOP', 'SESSION', 'SESSION'])
        q = make_winq(w, r, 0, kind, models, shape)
    if isinstance(q, WinQ) and q.kind != 'SESSION' and (case.seed // 20) % 3 == 1:
        # Flink's spelling, TABLE(TUMBLE(TABLE rel, DESCRIPTOR(t), size)); decided by the
        # seed, not by r, so the rest of the case stays as it was
        q.flink = True
        shape.append('flink')
    if s.updating:
        shape.append('updating')
    case.label = 'window:' + ', '.join(shape)
    case.models = models + [(D.FINAL_MODEL, q, 'retract')]


# ----------------------------------------------------------------------------------------
# TopN: ROW_NUMBER / RANK / DENSE_RANK filtered by the rank, DISTINCT ON, ORDER BY LIMIT.

class TopQ(FQ):
    family = 'topn'

    def __init__(self):
        super().__init__()
        self.kind = 'rownum'
        self.inner_from = ''
        self.inner_items = []    # [(X, alias)]
        self.fn = 'ROW_NUMBER'
        self.part = []           # [X]
        self.order = []          # [(X or sql text, direction text)]
        self.limit = 3
        self.rank_cmp = '<='
        self.rank_alias = 'rn'
        self.rank_first = False  # write N >= rn
        self.ctes = []
        self.group = None        # 'limit' over an aggregate: its GROUP BY
        self.distinct = False

    def order_sql(self):
        return ', '.join((o.sql() if isinstance(o, X) else o) + d for o, d in self.order)

    def with_sql(self, pg):
        if not self.ctes:
            return ''
        return 'WITH ' + ', '.join('%s AS (%s)' % (n, c.sql(pg)) for n, c in self.ctes) + ' '

    def sql(self, pg):
        w = self.s('where')
        if self.kind in ('rownum', 'rank'):
            over = 'OVER (%sORDER BY %s)' % (
                ('PARTITION BY %s ' % ', '.join(p.sql() for p in self.part)) if self.part else '',
                self.order_sql())
            inner = 'SELECT %s, %s() %s AS %s FROM %s' % (
                ', '.join('%s AS %s' % (x.sql(), a) for x, a in self.inner_items), self.fn, over,
                self.rank_alias, self.inner_from)
            if w:
                inner += ' WHERE ' + w
            cond = ('%d %s %s' % (self.limit, {'<=': '>=', '<': '>', '=': '='}[self.rank_cmp], self.rank_alias)
                    if self.rank_first else '%s %s %d' % (self.rank_alias, self.rank_cmp, self.limit))
            t = 'SELECT %s FROM (%s) AS t WHERE %s' % (self.items_sql(), inner, conj([cond, self.s('outer')]))
            return self.with_sql(pg) + t
        if self.kind == 'distinct_on':
            t = 'SELECT DISTINCT ON (%s) %s FROM %s' % (', '.join(p.sql() for p in self.part),
                                                       self.items_sql(), self.inner_from)
            if w:
                t += ' WHERE ' + w
            t += ' ORDER BY %s, %s' % (', '.join(p.sql() for p in self.part), self.order_sql())
            return self.with_sql(pg) + t
        t = 'SELECT %s%s FROM %s' % ('DISTINCT ' if self.distinct else '', self.items_sql(), self.inner_from)
        if w:
            t += ' WHERE ' + w
        if self.group:
            t += ' GROUP BY ' + ', '.join(x.sql() for x in self.group)
        t += ' ORDER BY %s LIMIT %d' % (self.order_sql(), self.limit)
        return self.with_sql(pg) + t

    def variants(self):
        out = super().variants()
        if self.limit > 1:
            v = copy.deepcopy(self)
            v.limit = 1
            out.insert(0, v)
        if len(self.part) > 1:
            for i in range(len(self.part)):
                v = copy.deepcopy(self)
                del v.part[i]
                out.append(v)
        if len(self.order) > 1:
            for i in range(len(self.order)):
                v = copy.deepcopy(self)
                del v.order[i]
                out.append(v)
        return out


def order_terms(r, g, cols, tiebreak, n=None):
    """ORDER BY terms: columns or small expressions with directions, then the unique
    tiebreaker (when given) so the order is total."""
    out = []
    pool = [c for c in cols if not c.inexact and c.name.split('.')[-1] != 'id']
    for _ in range(n or r.choice([1, 1, 2])):
        if pool and r.random() < 0.8:
            x = r.choice(pool).x()
        else:
            x = g.expr(g.pick_cat(['int', 'numeric', 'text', 'ts']), 1, exact=True, need_col=True)
        d = r.choice(['', ' ASC', ' DESC', ' DESC', ' DESC NULLS LAST', ' ASC NULLS FIRST', ' NULLS FIRST'])
        out.append((x, d))
    if tiebreak:
        out.append((tiebreak, r.choice(['', ' DESC'])))
    return out


def gen_topn(case, r, qr):
    upd = r.choice([0.0, 0.5, 1.0])
    w = World(r, case, 1 if r.random() < 0.75 else 2, 'mixed', upd, nvalue=(1, 4), kdiv=(10, 25, 60))
    case.sources = w.sources
    case.events = w.events
    r = w.r = qr
    q = TopQ()
    s = w.sources[0]
    kind = r.choice(['rownum', 'rownum', 'rank', 'dedup', 'distinct_on', 'limit', 'limit_agg'])
    alias = 'a'
    q.inner_from = '%s %s' % (src(s.name), alias) if r.random() < 0.6 else src(s.name, True)
    shape = [kind]
    if len(w.sources) > 1 and kind in ('rownum', 'limit', 'distinct_on') and r.random() < 0.5:
        # over a join: the pair of ids is unique (LEFT: b.id NULL only once per a row)
        jt = r.choice(['JOIN', 'LEFT JOIN'])
        b = w.sources[1]
        q.inner_from = '%s a %s %s b ON a.k1 = b.k1' % (src(s.name), jt, src(b.name))
        cols = w.scope(0, 'a') + w.scope(1, 'b')
        tb = 'a.id, b.id'
        shape.append(jt.lower())
    else:
        cols = w.scope(0, alias)
        tb = 'a.id'
    g = w.gen(cols)
    if r.random() < 0.4:
        q.slots['where'] = g.expr('bool', r.randint(1, 2), need_col=True)
        q.optional.add('where')
    pcands = [c for c in cols if not c.inexact and c.name.split('.')[-1] not in ('id',)]
    kcands = [c for c in pcands if c.name.split('.')[-1] in ('k1', 'k2')]

    def partition(nmax):
        out = []
        for _ in range(r.choice([1, 1, 2][:nmax + 1]) if nmax else 0):
            pool = kcands if kcands and r.random() < 0.7 else pcands
            c = r.choice(pool)
            if all(c.name != p.sql() for p in out):
                out.append(c.x())
        return out

    if kind in ('rownum', 'rank', 'dedup'):
        q.kind = 'rank' if kind == 'rank' else 'rownum'
        q.fn = r.choice(['RANK', 'DENSE_RANK']) if kind == 'rank' else 'ROW_NUMBER'
        q.part = partition(2) if r.random() < 0.85 else []
        if kind == 'dedup':
            tcol = [c for c in cols if c.name.endswith('.et')]
            if tcol:
                q.order = [(tcol[0].x(), r.choice([' DESC', '', ' ASC'])), (tb, '')]
            else:
                q.order = order_terms(r, g, cols, tb, 1)
            q.limit, q.rank_cmp = 1, '='
        elif kind == 'rank':
            # ties are the point: no tiebreaker (the ranks do not depend on the tie order)
            q.order = order_terms(r, g, cols, None, r.choice([1, 1, 2]))
            q.limit = r.choice([1, 2, 3])
            q.rank_cmp = r.choice(['<=', '<=', '<'])
            if q.rank_cmp == '<':
                q.limit += 1
        else:
            q.order = order_terms(r, g, cols, tb)
            q.limit = r.choice([1, 2, 3, 5])
            q.rank_cmp = r.choice(['<=', '<=', '<', '='])
            if q.rank_cmp == '<':
                q.limit += 1
            if q.rank_cmp == '=':
                q.limit = 1
        q.rank_alias = r.choice(['rn', 'rk', 'pos'])
        q.rank_first = r.random() < 0.15
        inner = [(c.x(), c.name.replace('.', '_')) for c in cols if r.random() < 0.6 or c.name.endswith('.id')]
        if r.random() < 0.3:
            inner.append((g.expr(g.pick_cat(['int', 'text', 'numeric']), 1, need_col=True), 'e1'))
        q.inner_items = inner
        icols = out_cols(inner)
        og = Gen(r, icols, case.nrows, s.schema)
        out = [c.x() for c in icols if r.random() < 0.7] or [icols[0].x()]
        rank_col = X('bigint', raw=q.rank_alias, mag=100, iscol=True)
        if r.random() < 0.5:
            out.append(rank_col)
        if r.random() < 0.15:
            out.append(og.expr('int', 1, need_col=True))
        q.items = [(it, 'c%d' % (i + 1)) for i, it in enumerate(out)]
        if r.random() < 0.15:
            q.slots['outer'] = og.expr('bool', 1, need_col=True)
            q.optional.add('outer')
        shape.append('%s%s, N=%d%s' % (q.fn.lower(), '' if q.part else ' global', q.limit,
                                       ', rank shown' if rank_col in out else ''))
    elif kind == 'distinct_on':
        q.kind = 'distinct_on'
        q.part = partition(2) or [r.choice(pcands).x()]
        q.order = order_terms(r, g, cols, tb)
        items = list(q.part) if r.random() < 0.7 else []
        items += [c.x() for c in cols if r.random() < 0.5]
        if not items:
            items = [cols[0].x()]
        q.items = [(it, 'c%d' % (i + 1)) for i, it in enumerate(items)]
    elif kind == 'limit' and r.random() < 0.2:
        # SELECT DISTINCT ... ORDER BY (select items only) LIMIT: distinct rows are unique
        q.kind = 'limit'
        q.distinct = True
        items = [c.x() for c in pcands if r.random() < 0.4] or [r.choice(pcands).x()]
        q.items = [(it, 'c%d' % (i + 1)) for i, it in enumerate(items)]
        q.keep_items = {a for _, a in q.items}
        q.order = [(a, r.choice(['', ' DESC', ' NULLS FIRST', ' DESC NULLS LAST'])) for _, a in q.items]
        r.shuffle(q.order)
        q.limit = r.choice([1, 2, 3, 5])
        shape.append('distinct')
    elif kind == 'limit':
        q.kind = 'limit'
        items = [c.x() for c in cols if r.random() < 0.6 or c.name.endswith('.id')]
        items += pick_items(g, r, r.randint(0, 2))
        q.items = [(it, 'c%d' % (i + 1)) for i, it in enumerate(items)]
        order = order_terms(r, g, cols, tb)
        # name ORDER BY keys that are select items by alias or ordinal sometimes
        for i, (o, d) in enumerate(order):
            hit = [a for x, a in q.items if isinstance(o, X) and x.sql() == o.sql()]
            if hit and r.random() < 0.5:
                order[i] = (hit[0] if r.random() < 0.6 else str(int(hit[0][1:])), d)
                q.keep_items.add(hit[0])
        q.order = order
        q.limit = r.choice([1, 3, 5, 10])
    else:
        q.kind = 'limit'
        keys = group_keys(r, g, pcands, r.choice([1, 2]), prefer=('k1', 'k2'))
        q.group = keys
        ag, aggs = agg_items(r, g, keys, case.nrows, s.schema)
        aggs = [a for a in aggs if not a.inexact] or [X('bigint', 'count(*)', [], mag=case.nrows, iscol=True)]
        items = keys + aggs
        q.items = [(it, 'c%d' % (i + 1)) for i, it in enumerate(items)]
        q.keep_items = {a for _, a in q.items}
        # the group keys make the order total
        order = [(r.choice(['c%d' % (len(keys) + 1 + i) for i in range(len(aggs))]),
                  r.choice([' DESC', '', ' DESC NULLS LAST']))]
        order += [(r.choice(['c%d' % (i + 1), str(i + 1)]), r.choice(['', ' DESC'])) for i in range(len(keys))]
        q.order = order
        q.limit = r.choice([1, 2, 3, 5])
        shape.append('grouped')
    shape.append('updating' if s.updating else 'insert-only')
    case.label = 'topn:' + ', '.join(shape)
    case.models = [(D.FINAL_MODEL, q, 'retract')]


# ----------------------------------------------------------------------------------------
# Set operations.

class SetQ(FQ):
    family = 'setop'
    min_items = 0

    def __init__(self):
        super().__init__()
        self.branches = []   # [{'src', 'alias', 'items': [X], 'where': slot, 'group': [X] or None}]
        self.ops = []        # between branches
        self.paren = False
        self.nest = None     # 3 branches: 'left' = (A op B) op C, 'right' = A op (B op C)
        self.outer = None    # (items, group) of a query over the set operation

    def sql(self, pg):
        t = self.setop_sql(pg)
        if self.outer is None:
            return t
        items, group = self.outer
        t = 'SELECT %s FROM (%s) AS u' % (', '.join('%s AS %s' % (x.sql(), a) for x, a in items), t)
        if group:
            t += ' GROUP BY ' + ', '.join(x.sql() for x in group)
        return t

    def setop_sql(self, pg):
        parts = []
        for i, b in enumerate(self.branches):
            t = 'SELECT %s FROM %s %s' % (', '.join(
                '%s AS c%d' % (x.sql(), k + 1) if i == 0 else x.sql() for k, x in enumerate(b['items'])),
                src(b['src']), b['alias'])
            if self.s(b['where']):
                t += ' WHERE ' + self.s(b['where'])
            if b.get('group'):
                t += ' GROUP BY ' + ', '.join(x.sql() for x in b['group'])
            parts.append('(%s)' % t if self.paren else t)
        if self.nest == 'left' and len(parts) == 3:
            return '(%s %s %s) %s %s' % (parts[0], self.ops[0], parts[1], self.ops[1], parts[2])
        if self.nest == 'right' and len(parts) == 3:
            return '%s %s (%s %s %s)' % (parts[0], self.ops[0], parts[1], self.ops[1], parts[2])
        t = parts[0]
        for op, p in zip(self.ops, parts[1:]):
            t += ' %s %s' % (op, p)
        return t

    def variants(self):
        out = []
        if len(self.branches) > 2:
            v = copy.deepcopy(self)
            v.branches.pop()
            v.ops.pop()
            v.nest = None
            out.append(v)
        ncol = len(self.branches[0]['items'])
        if ncol > 1 and self.outer is None:
            for k in range(ncol):
                if any(b.get('group') for b in self.branches):
                    break
                v = copy.deepcopy(self)
                for b in v.branches:
                    del b['items'][k]
                out.append(v)
        for name in sorted(self.slots):
            if self.slots[name] is not None:
                v = copy.deepcopy(self)
                v.slots[name] = None
                out.append(v)
                root = self.slots[name]
                for path, node in list(D.expr_slots(root)):
                    for kk in node.kids:
                        if kk.ty == node.ty or (not path and kk.ty == 'boolean'):
                            v = copy.deepcopy(self)
                            v.slots[name] = D.replace_at(root, path, copy.deepcopy(kk))
                            out.append(v)
        return out


SET_OPS = ['UNION', 'UNION', 'UNION ALL', 'INTERSECT', 'INTERSECT ALL', 'EXCEPT', 'EXCEPT ALL',
           'EXCEPT', 'INTERSECT']


def gen_setop(case, r, qr):
    nsrc = 2 if r.random() < 0.8 else 3
    w = World(r, case, nsrc, 'mixed', r.choice([0.0, 0.5, 1.0]), nvalue=(1, 3), kdiv=(8, 15, 30))
    case.sources = w.sources
    case.events = w.events
    r = w.r = qr
    q = SetQ()
    nb = 2 if r.random() < 0.75 else 3
    srcs = [0, 1] + [r.randint(0, nsrc - 1)] if nb == 3 else [0, 1]
    if r.random() < 0.15:
        srcs[1] = 0   # a set operation of a source with itself (two filters)
    grouped = r.random() < 0.15
    scopes = [w.scope(si, 'b%d' % i) for i, si in enumerate(srcs)]
    gens = [w.gen(sc) for sc in scopes]
    # columns: categories that every branch can fill, preferring the shared keys
    cats = []
    ncol = r.choice([1, 2, 2, 3])
    keyish = ['k1', 'k2']
    plan = []
    for k in range(ncol):
        opts = []
        for kk in keyish:
            if all(any(c.name.endswith('.' + kk) for c in sc) for sc in scopes) and kk not in [p[1] for p in plan]:
                opts.append(('key', kk))
        if opts and r.random() < 0.7:
            plan.append(r.choice(opts))
        else:
            plan.append(('cat', r.choice(['int', 'text', 'bool', 'numeric', 'ts', 'int'])))
        cats.append(plan[-1])
    for i, si in enumerate(srcs):
        b = {'src': w.sources[si].name, 'alias': 'b%d' % i, 'items': [], 'where': 'w%d' % i}
        g = gens[i]
        for kind, v in plan:
            if kind == 'key':
                c = [c for c in scopes[i] if c.name.endswith('.' + v)][0]
                x = c.x()
                if r.random() < 0.15:
                    x = X(c.ty, '({0} + 1)', [x], mag=c.mag + 1) if v == 'k1' else X('text', 'lower({0})', [x])
            else:
                pool = [c for c in scopes[i] if cat_of(c.ty) == v and not c.inexact]
                if pool and r.random() < 0.7:
                    x = r.choice(pool).x()
                else:
                    x = g.expr(v, r.choice([0, 1]), exact=True, need_col=True)
            b['items'].append(x)
        if grouped:
            b['group'] = list(b['items'])
            b['items'] = b['items'] + [X('bigint', 'count(*)', [], mag=case.nrows, iscol=True)]
        q.slots[b['where']] = g.expr('bool', r.randint(1, 2), need_col=True) if r.random() < 0.7 else None
        q.branches.append(b)
    # unify numeric categories: 'numeric' and 'int' can meet, others must match exactly
    for k in range(ncol):
        tys = [b['items'][k].ty for b in q.branches]
        cs = {cat_of(t) for t in tys}
        if len(cs) > 1 and not cs <= {'int', 'numeric'}:
            # replace mismatching items with a cast of the first category
            t0 = tys[0]
            for b in q.branches[1:]:
                if cat_of(b['items'][k].ty) != cat_of(t0):
                    b['items'][k] = X(t0, 'CAST(NULL AS %s)' % t0, [], mag=0)
    q.ops = [r.choice(SET_OPS) for _ in range(nb - 1)]
    q.paren = r.random() < 0.2
    if nb == 3 and r.random() < 0.4:
        q.nest = r.choice(['left', 'right'])
    if not grouped and r.random() < 0.2:
        # a query over the set operation: count the rows per value of its first column
        cols = [Col('u.c%d' % (k + 1), q.branches[0]['items'][k].ty, 100) for k in range(ncol)]
        key = cols[0].x()
        q.outer = ([(key, 'c1'), (X('bigint', 'count(*)', [], mag=case.nrows, iscol=True), 'n')], [key])
    case.label = 'setop:%s%s%s%s%s' % (' / '.join(q.ops), ' grouped' if grouped else '',
                                       ' nested-' + q.nest if q.nest else '', ' under GROUP BY' if q.outer else '',
                                   ' (updating)' if any(s.updating for s in w.sources) else '')
    case.models = [(D.FINAL_MODEL, q, 'retract')]


# ----------------------------------------------------------------------------------------
# Running aggregates: AGG(x) OVER (PARTITION BY k ORDER BY t) over an insert-only input.

class OverQ(FQ):
    family = 'running'

    def __init__(self):
        super().__init__()
        self.rel = ''
        self.ctes = []
        self.late = None      # PostgreSQL drops the rows weir finds late: the qualifier

    def sql(self, pg):
        t = ''
        if self.ctes:
            t = 'WITH ' + ', '.join('%s AS (%s)' % (n, c.sql(pg)) for n, c in self.ctes) + ' '
        t += 'SELECT %s FROM %s' % (self.items_sql(), self.rel)
        conds = [self.s('where')]
        if pg and self.late is not None:
            conds.append('(%s__wm IS NULL OR %set >= %s__wm)' % ((self.late,) * 3))
        if conj(conds):
            t += ' WHERE ' + conj(conds)
        return t

    def late_count_sql(self):
        """PostgreSQL: how many rows weir must find late."""
        t = 'SELECT count(*) FROM %s WHERE %s' % (self.rel, conj([
            self.s('where'), '%s__wm IS NOT NULL AND %set < %s__wm' % ((self.late or '',) * 3)]))
        return t


def gen_running(case, r, qr):
    distinct = r.random() < 0.35
    late = not distinct and r.random() < 0.3
    w = World(r, case, 1, 'distinct' if distinct else 'late' if late else 'bounded', [False], nvalue=(1, 4),
              kdiv=(15, 40, 100))
    case.sources = w.sources
    case.events = w.events
    r = w.r = qr
    s = w.sources[0]
    q = OverQ()
    alias = 'a' if r.random() < 0.5 else None
    q.rel = '%s %s' % (src(s.name), alias) if alias else src(s.name, True)
    cols = w.scope(0, alias)
    if r.random() < 0.15 and not late:
        cte = CteQ(s.name)
        cte.items = [(c.x(), c.name.split('.')[-1]) for c in w.scope(0, None)]
        cte.keep_items = {a for _, a in cte.items}
        gc = w.gen(w.scope(0, None))
        cte.slots['where'] = gc.expr('bool', 1, need_col=True)
        cte.optional.add('where')
        q.ctes = [('f', cte)]
        q.rel = 'f'
        cols = w.scope(0, None)
        alias = None
    g = w.gen(cols)
    pre = (alias + '.') if alias else ''
    pcands = [c for c in cols if not c.inexact and c.name.split('.')[-1] not in ('id', 'et')]
    kc = [c for c in pcands if c.name.split('.')[-1] in ('k1', 'k2')]
    part = []
    for _ in range(r.choice([0, 1, 1, 1, 2])):
        c = r.choice(kc if kc and r.random() < 0.7 else pcands)
        if all(c.name != p.sql() for p in part):
            part.append(c.x())
    def pick_frame():
        # ROWS frames and row-based functions need distinct times: PostgreSQL orders peers
        # arbitrarily, weir by arrival
        x = r.random()
        if distinct and x < 0.25:
            return ' ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW'
        if distinct and x < 0.45:
            return r.choice([' ROWS BETWEEN %d PRECEDING AND CURRENT ROW', ' ROWS %d PRECEDING']) % r.choice([0, 1, 2, 3, 5])
        if distinct and x < 0.5:
            return ' ROWS BETWEEN CURRENT ROW AND CURRENT ROW'
        if x < 0.6:
            return " RANGE BETWEEN INTERVAL '%d seconds' PRECEDING AND CURRENT ROW" % r.choice([0, 1, 2, 3, 5, 10, 30])
        if x < 0.7:
            return ' RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW'
        if x < 0.8:
            return ' RANGE UNBOUNDED PRECEDING'
        return ''

    def over_of(frame):
        return 'OVER (%sORDER BY %set%s)' % (('PARTITION BY %s ' % ', '.join(p.sql() for p in part)) if part else '',
                                             pre, frame)

    frame = pick_frame()
    over = over_of(frame)
    items = [c.x() for c in cols if c.name.split('.')[-1] == 'id'] if r.random() < 0.8 else []
    items += [c.x() for c in cols if r.random() < 0.3 and c.name.split('.')[-1] != 'id']
    ag = AggGen(r, g, [], case.nrows, s.schema)
    naggs = r.randint(1, 3)
    for _ in range(naggs):
        for _t in range(20):
            cat = g.pick_cat(['int', 'int', 'numeric', 'numeric', 'float', 'text', 'ts'])
            a = ag.agg_call(cat)
            if a is None or 'DISTINCT' in a.tmpl or a.tmpl.startswith(('BOOL', 'bool')):
                continue
            # the aggregate call becomes a window call: insert OVER after the call (and
            # after its FILTER clause)
            a = X(a.ty, a.tmpl + ' ' + over.replace('{', '{{').replace('}', '}}'), a.kids,
                  mag=a.mag, inexact=a.inexact, iscol=True, sc=a.sc)
            items.append(a)
            break
    if distinct:
        # value functions: lag (row-based, any frame), first_value / last_value (the frame's
        # first and last row), over the exact columns
        vcols = [c for c in cols if not c.inexact]
        for _ in range(r.choice([0, 0, 1, 2])):
            c = r.choice(vcols)
            fn = r.choice(['lag', 'lag', 'first_value', 'last_value'])
            if fn == 'lag':
                k = r.choice([None, 1, 2, 0])
                same = [d for d in vcols if d.ty == c.ty and d is not c]
                if k is not None and same and r.random() < 0.5:
                    items.append(X(c.ty, 'lag({0}, %d, {1}) %s' % (k, over.replace('{', '{{').replace('}', '}}')),
                                   [c.x(), r.choice(same).x()], iscol=True))
                    continue
                args = '{0}' if k is None else '{0}, %d' % k
                items.append(X(c.ty, 'lag(%s) %s' % (args, over.replace('{', '{{').replace('}', '}}')), [c.x()],
                               iscol=True))
            else:
                items.append(X(c.ty, '%s({0}) %s' % (fn, over.replace('{', '{{').replace('}', '}}')), [c.x()],
                               iscol=True))
    if r.random() < 0.25:
        # a second window: another frame over the same partitions
        frame2 = pick_frame()
        items.append(X('bigint', 'count(*) ' + over_of(frame2), [], mag=case.nrows, iscol=True))
    if not any('OVER' in (it.tmpl or '') for it in items):
        items.append(X('bigint', 'count(*) ' + over, [], mag=case.nrows, iscol=True))
    q.items = [(it, 'c%d' % (i + 1)) for i, it in enumerate(items)]
    q.keep_items = set([a for it, a in q.items if 'OVER' in (it.tmpl or '')][:1])
    if r.random() < 0.4:
        q.slots['where'] = g.expr('bool', r.randint(1, 2), need_col=True)
        q.optional.add('where')
    if late:
        q.late = pre
    case.label = 'running:%s%s%s' % ('partitioned' if part else 'global', frame.split(' BETWEEN')[0].lower() or ' range(default)',
                                     ', distinct times' if distinct else ', late rows' if late else ', peers')
    case.models = [(D.FINAL_MODEL, q, 'retract')]


# ----------------------------------------------------------------------------------------

BUILDERS = {
    'join': lambda case, r, qr: gen_join(case, r, qr, interval=False),
    'interval': lambda case, r, qr: gen_join(case, r, qr, interval=True),
    'subquery': gen_subquery,
    'window': gen_window,
    'topn': gen_topn,
    'setop': gen_setop,
    'running': gen_running,
}


def _sqlext(case, r, qr):
    import families_sql
    families_sql.gen_sqlext(case, r, qr)


BUILDERS['sqlext'] = _sqlext


def build(case, r, qr):
    """Fills case.sources, case.events, case.models and case.label for case.family.
    The data come from r only, so a re-rolled query (qr) keeps them."""
    BUILDERS[case.family](case, r, qr)
