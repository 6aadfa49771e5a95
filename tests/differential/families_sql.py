"""The `sqlext` family of the differential tester (seeds 20001-29999, see README.md):
SQL forms beyond the cycle's families. The shape of a seed is SHAPES[seed % len(SHAPES)] (in this order):

  comma   FROM of 3-8 sources separated by commas, their join conditions in WHERE
          (a spanning tree of equalities over `id` and `k1`, in an order unrelated to
          the FROM order, plus filters and non-equality conditions): the cross product
          of the inputs would be far too large, a join in a connected order is small.

  corr    correlated subqueries decorrelated over the outer values: scalar aggregates
          (count/sum/min/max, count of no rows is 0) in the select list, in CASE, in
          COALESCE and in WHERE, correlated by equalities and by other comparisons
          (i.k1 < a.k1, i.id <> a.id), outer columns in the subquery's select list;
          EXISTS / NOT EXISTS under OR, NOT and CASE; x op ANY / ALL (subquery) and
          [NOT] IN under OR with NULL keys on either side (three-valued results)

  stats   variance / var_samp / var_pop / stddev / stddev_samp / stddev_pop ([DISTINCT] x)
          over integer, numeric and double precision columns, grouped or not, with FILTER,
          in HAVING;
          string_agg(x, sep ORDER BY x [DESC]), string_agg(DISTINCT x, ...) and
          string_agg(x, delimiter per row ORDER BY id [DESC]); array_agg(x ORDER BY id
          [DESC]), array_agg(DISTINCT x ORDER BY x ...), json_agg(x ORDER BY id [DESC]),
          json_object_agg(id, x ORDER BY id), with FILTER, compared as their text

  gsets   GROUP BY ROLLUP / CUBE / GROUPING SETS (also mixed with plain keys and ()),
          GROUPING(), HAVING, over an insert-only or updating source

From seed 21000 on the shape is SHAPES_2[seed % len(SHAPES_2)], which adds:

  ordset  mode() / percentile_cont(f) / percentile_disc(f) WITHIN GROUP (ORDER BY x
          [ASC|DESC]) with FILTER, grouped or not, over an insert-only or updating source

  subq    (seeds 22000-22999 only) subquery expressions whose body has DISTINCT, GROUP BY,
          HAVING without GROUP BY, ORDER BY ... LIMIT (correlated: a TopN per outer
          value; also with OFFSET; ordered by an expression over the outer row), LIMIT 0,
          DISTINCT ON (per outer value), EXISTS ... LIMIT, set operations of
          correlated branches (in IN, EXISTS, a scalar TopN); uncorrelated scalar subqueries that are not
          aggregates (at most one row: NULL or the value); boolean scalar subqueries;
          subqueries inside VALUES rows; the model's own ORDER BY ... LIMIT ... OFFSET

  strings (seeds 23000-23999 only) string_agg OVER (PARTITION BY k1 ORDER BY et [frame])
          over an insert-only source with distinct times (even seeds); string_agg(DISTINCT
          x, delimiter per row [ORDER BY x | delimiter [ASC|DESC] [NULLS FIRST|LAST]]) and
          NULLS FIRST / DESC NULLS LAST on another key, grouped or not (odd seeds)

  constrel constant relations: VALUES in FROM with alias columns joined (inner, left,
          right) with a source, under GROUP BY, in an IN subquery; a SELECT without
          FROM cross joined; SELECT without FROM and VALUES as UNION ALL branches

Queries follow families.py's conventions (FQ, markers, slots for the minimiser)."""

import difftest as D
from difftest import X, Col
import families as F


class CommaQ(F.FQ):
    family = 'sqlext'

    def __init__(self):
        super().__init__()
        self.froms = []
        self.conds = []
        self.group = None

    def sql(self, pg):
        t = 'SELECT %s FROM %s' % (self.items_sql(), ', '.join(self.froms))
        w = F.conj([self.s(c) for c in self.conds])
        if w:
            t += ' WHERE ' + w
        if self.group:
            t += ' GROUP BY ' + ', '.join(x.sql() for x in self.group)
        return t


def gen_comma(case, r, qr):
    n = r.randint(3, 8)
    w = F.World(r, case, n, None, r.choice([0.0, 0.3, 1.0]), k2=False, nvalue=(1, 2))
    case.sources = w.sources
    case.events = w.events
    r = w.r = qr
    q = CommaQ()
    aliases = ['a%d' % (i + 1) for i in range(n)]
    # a spanning tree over the sources, in a random order
    perm = list(range(n))
    r.shuffle(perm)
    k1_edges = 0
    for j in range(1, n):
        x, y = perm[j], perm[r.randrange(j)]
        ax, ay = aliases[x], aliases[y]
        if k1_edges == 0 and r.random() < 0.25:
            c = '%s.k1 = %s.k1' % (ax, ay)
            k1_edges += 1
        elif r.random() < 0.15:
            c = '%s.id = %s.id + 1' % (ax, ay)
        else:
            c = '%s.id = %s.id' % ((ax, ay) if r.random() < 0.5 else (ay, ax))
        name = 'j%d' % j
        q.slots[name] = X('boolean', raw=c)
        q.conds.append(name)
    # filters and conditions over two sources that are not equalities
    for k in range(r.randint(0, 3)):
        i = r.randrange(n)
        if r.random() < 0.5:
            g = w.gen(w.scope(i, aliases[i]))
            x = g.expr('bool', r.randint(1, 2), need_col=True)
        else:
            o = r.randrange(n)
            x = X('boolean', raw='%s.k1 %s %s.k1' % (aliases[i], r.choice(['<', '<=', '<>', '>']), aliases[o]))
        name = 'f%d' % k
        q.slots[name] = x
        q.conds.append(name)
        q.optional.add(name)
    r.shuffle(q.conds)
    order = list(range(n))
    r.shuffle(order)
    q.froms = ['%s %s' % (F.src(w.sources[i].name), aliases[i]) for i in order]
    scope = [c for i in range(n) for c in w.scope(i, aliases[i])]
    g = w.gen(scope)
    if r.random() < 0.3:
        keys = F.group_keys(r, g, scope, 1, prefer=('k1',))
        q.group = keys
        _, aggs = F.agg_items(r, g, keys, case.nrows, w.sources[0].schema)
        q.items = [(it, 'c%d' % (i + 1)) for i, it in enumerate(keys + aggs)]
    else:
        items = [Col('%s.id' % aliases[i], 'bigint', 10 ** 6).x() for i in r.sample(range(n), min(n, 3))]
        items += F.pick_items(g, r, r.randint(1, 2))
        q.items = [(it, 'c%d' % (i + 1)) for i, it in enumerate(items)]
    case.label = 'sqlext:comma %d%s%s' % (n, ' grouped' if q.group else '',
                                         ' (updating)' if any(s.updating for s in w.sources) else '')
    case.models = [(D.FINAL_MODEL, q, 'retract')]


class CorrQ(F.FQ):
    family = 'sqlext'

    def __init__(self):
        super().__init__()
        self.outer = ''
        self.conds = []
        self.group = None
        self.having = None

    def sql(self, pg):
        t = 'SELECT %s FROM %s' % (self.items_sql(), self.outer)
        w = F.conj([self.s(c) for c in self.conds])
        if w:
            t += ' WHERE ' + w
        if self.group:
            t += ' GROUP BY ' + self.group
        if self.having:
            t += ' HAVING ' + self.having
        return t + getattr(self, 'suffix', '')


def corr_where(w, r, si, ia):
    """The correlation of a subquery over source si (alias ia) with the outer `a`."""
    conds = []
    keys = [k for k in ('k1', 'k2') if w.has(si, k) and w.has(0, k)]
    if keys and r.random() < 0.8:
        k = r.choice(keys)
        conds.append('%s.%s = a.%s' % (ia, k, k) if r.random() < 0.7 else 'a.%s = %s.%s' % (k, ia, k))
    if not conds or r.random() < 0.4:
        conds.append(r.choice(['%s.k1 < a.k1', '%s.k1 <> a.k1', '%s.id <= a.id', 'a.k1 >= %s.k1 + 1',
                               '(%s.k1 = a.k1 OR a.k1 IS NULL)']).replace('%s', ia))
    if r.random() < 0.4:
        g = w.gen(w.scope(si, ia))
        conds.append(g.expr('bool', 1, need_col=True).sql())
    return ' AND '.join(conds)


def scalar_sub(w, r, si, ia):
    S = F.src(w.sources[si].name)
    agg, ty = r.choice([('count(*)', 'bigint'), ('count(%s.k1)', 'bigint'), ('sum(%s.k1)', 'numeric'),
                        ('max(%s.k1)', 'numeric'), ('min(%s.id)', 'bigint'), ('count(*) + a.k1', 'numeric'),
                        ('max(%s.k1) - min(a.id)', 'numeric')])
    agg = agg.replace('%s', ia)
    if 'min(a.id)' in agg:
        agg = agg.replace('min(a.id)', 'a.id')
    return X(ty, raw='(SELECT %s FROM %s %s WHERE %s)' % (agg, S, ia, corr_where(w, r, si, ia))), ty


def quantified(w, r, si, ia):
    S = F.src(w.sources[si].name)
    op = r.choice(['= ANY', 'IN', '< ANY', '>= ANY', '<> ALL', '= ALL', '> ALL', 'NOT IN'])
    where = ''
    if r.random() < 0.5:
        where = ' WHERE ' + corr_where(w, r, si, ia)
    elif r.random() < 0.5:
        g = w.gen(w.scope(si, ia))
        where = ' WHERE ' + g.expr('bool', 1, need_col=True).sql()
    return '(a.k1 %s (SELECT %s.k1 FROM %s %s%s))' % (op, ia, S, ia, where)


def exists_sub(w, r, si, ia):
    S = F.src(w.sources[si].name)
    return '%sEXISTS (SELECT 1 FROM %s %s WHERE %s)' % ('NOT ' if r.random() < 0.4 else '', S, ia,
                                                        corr_where(w, r, si, ia))


def gen_corr(case, r, qr):
    nsrc = 2
    w = F.World(r, case, nsrc, None, r.choice([0.0, 0.5, 1.0]))
    case.sources = w.sources
    case.events = w.events
    r = w.r = qr
    q = CorrQ()
    q.outer = '%s a' % F.src(w.sources[0].name)
    cols = w.scope(0, 'a')
    g = w.gen(cols)
    if r.random() < 0.25:
        # a grouped outer query: subqueries over the group key in the select list and HAVING
        si = 1
        S = F.src(w.sources[si].name)
        corr = r.choice(['i.k1 = a.k1', 'i.k1 < a.k1', 'i.k1 <> a.k1', '(i.k1 = a.k1 OR a.k1 IS NULL)'])
        sub = '(SELECT %s FROM %s i WHERE %s)' % (r.choice(['count(*)', 'sum(i.k1)', 'max(i.id)']), S, corr)
        q.items = [(Col('a.k1', 'numeric', 100).x(), 'c1'), (X('bigint', raw='count(*)'), 'c2'),
                   (X('numeric', raw=sub), 'c3')]
        q.group = 'a.k1'
        if r.random() < 0.6:
            corr2 = r.choice(['i.k1 = a.k1', 'i.k1 >= a.k1', 'a.k1 = i.k1 + 1'])
            if r.random() < 0.4:
                corr2 += ' AND ' + w.gen(w.scope(si, 'i')).expr('bool', 1, need_col=True).sql()
            sub2 = '(SELECT count(*) FROM %s i WHERE %s)' % (S, corr2)
            q.having = 'count(*) %s %s' % (r.choice(['>', '<=', '<>']), sub2)
        case.label = 'sqlext:corr grouped%s' % (' (updating)' if any(s.updating for s in w.sources) else '')
        case.models = [(D.FINAL_MODEL, q, 'retract')]
        return
    items = [Col('a.id', 'bigint', 10 ** 6).x()]
    kinds = []
    for n in range(r.randint(1, 2)):
        ia = 'i%d' % (n + 1)
        si = 1 if r.random() < 0.8 else 0
        kind = r.choice(['scalar', 'scalar', 'case', 'where', 'exists-or', 'exists-case', 'quant', 'quant-or'])
        kinds.append(kind)
        if kind == 'scalar':
            x, ty = scalar_sub(w, r, si, ia)
            items.append(X(ty, 'COALESCE({0}, -1)', [x]) if r.random() < 0.3 else x)
        elif kind == 'case':
            x, ty = scalar_sub(w, r, si, ia)
            items.append(X('text', "CASE WHEN {0} > %d THEN 'many' WHEN {0} IS NULL THEN 'none' ELSE 'few' END"
                           % r.choice([0, 1, 3]), [x]))
        elif kind == 'where':
            x, ty = scalar_sub(w, r, si, ia)
            name = 'w%d' % n
            q.slots[name] = X('boolean', '({0} %s a.k1)' % r.choice(['>', '<=', '=', '<>']), [x])
            q.conds.append(name)
        elif kind == 'exists-or':
            name = 'w%d' % n
            other = g.expr('bool', 1, need_col=True)
            q.slots[name] = X('boolean', '(%s OR {0})' % exists_sub(w, r, si, ia), [other])
            q.conds.append(name)
        elif kind == 'exists-case':
            items.append(X('text', "CASE WHEN %s THEN 'yes' ELSE 'no' END" % exists_sub(w, r, si, ia)))
        elif kind == 'quant':
            items.append(X('boolean', raw=quantified(w, r, si, ia)))
        else:
            name = 'w%d' % n
            other = g.expr('bool', 1, need_col=True)
            tmpl = r.choice(['(%s OR {0})', '(NOT %s OR {0})', '(%s IS NOT TRUE AND {0})'])
            q.slots[name] = X('boolean', tmpl % quantified(w, r, si, ia), [other])
            q.conds.append(name)
    if r.random() < 0.3:
        items += F.pick_items(g, r, 1)
    q.items = [(it, 'c%d' % (i + 1)) for i, it in enumerate(items)]
    case.label = 'sqlext:corr %s%s' % (', '.join(kinds), ' (updating)' if any(s.updating for s in w.sources) else '')
    case.models = [(D.FINAL_MODEL, q, 'retract')]


class StatsQ(F.FQ):
    family = 'sqlext'

    def __init__(self):
        super().__init__()
        self.rel = ''
        self.group = None
        self.having = None

    def sql(self, pg):
        t = 'SELECT %s FROM %s' % (self.items_sql(), self.rel)
        if self.group:
            t += ' GROUP BY ' + self.group
        if self.having:
            t += ' HAVING ' + self.having
        return t + getattr(self, 'suffix', '')


def gen_stats(case, r, qr):
    w = F.World(r, case, 1, None, r.choice([0.0, 1.0]), nvalue=(2, 4))
    case.sources = w.sources
    case.events = w.events
    r = w.r = qr
    q = StatsQ()
    q.rel = '%s a' % F.src(w.sources[0].name)
    # squares of values beyond 10^9 would overflow weir's 38-digit numeric (a documented limit)
    cols = [c for c in w.sources[0].cols if c['ty'] in ('bigint', 'integer', 'smallint', 'numeric', 'double precision')
            and (c.get('mag') or 0) <= 10 ** 9
            and (c['ty'] != 'numeric' or (c['decl'].startswith('numeric(') and (c.get('sc') or 0) <= 3))]
    if not cols:
        cols = [c for c in w.sources[0].cols if c['name'] == 'id']
    items = []
    if r.random() < 0.7:
        q.group = 'a.k1'
        items.append(Col('a.k1', 'numeric', 100).x())
    for _ in range(r.randint(1, 3)):
        c = r.choice(cols)
        fn = r.choice(['variance', 'var_samp', 'var_pop', 'stddev', 'stddev_samp', 'stddev_pop'])
        flt = c['ty'] == 'double precision'
        filt = ''
        if r.random() < 0.25:
            filt = ' FILTER (WHERE a.id %% %d <> 0)' % r.choice([2, 3])
        dist = 'DISTINCT ' if r.random() < 0.35 else ''
        items.append(X('double precision' if flt else 'numeric', raw='%s(%sa.%s)%s' % (fn, dist, c['name'], filt),
                       inexact=flt))
    texts = [c['name'] for c in w.sources[0].cols if c['ty'] == 'text']
    if texts and r.random() < 0.6:
        t = r.choice(texts)
        sep = r.choice(["','", "' | '", "''", 'NULL'])
        u = r.random()
        if u < 0.4:
            # ordered by another expression (the row's unique id: no ties, whose order
            # PostgreSQL leaves unspecified), the delimiter of each row placed before it
            dl = r.choice([sep, "CASE WHEN a.id %% 2 = 0 THEN ',' ELSE ' | ' END" % (),
                           "CASE WHEN a.id %% 3 = 0 THEN NULL ELSE ';' END" % (), 'a.%s' % r.choice(texts)])
            items.append(X('text', raw="string_agg(a.%s, %s ORDER BY a.id%s)" % (t, dl, r.choice(['', ' DESC']))))
        elif u < 0.55:
            items.append(X('text', raw="string_agg(DISTINCT a.%s, %s ORDER BY a.%s)" % (t, sep, t)))
        else:
            items.append(X('text', raw="string_agg(a.%s, %s ORDER BY a.%s%s)" % (t, sep, t, r.choice(['', ' DESC', ' ASC']))))
    # the collecting aggregates (as their text: PostgreSQL's array and json output),
    # ordered by the unique id or by the value (DISTINCT), with FILTER
    exact = [c['name'] for c in w.sources[0].cols if c['ty'] != 'double precision']
    if exact and r.random() < 0.6:
        c = r.choice(exact)
        filt = ' FILTER (WHERE a.id %% %d <> 0)' % r.choice([2, 3]) if r.random() < 0.3 else ''
        u = r.random()
        if u < 0.35:
            raw = "array_agg(a.%s ORDER BY a.id%s)%s::text" % (c, r.choice(['', ' DESC']), filt)
        elif u < 0.55:
            raw = "array_agg(DISTINCT a.%s ORDER BY a.%s%s)%s::text" % (c, c, r.choice(['', ' DESC', ' DESC NULLS LAST']), filt)
        elif u < 0.8:
            raw = "json_agg(a.%s ORDER BY a.id%s)%s::text" % (c, r.choice(['', ' DESC']), filt)
        else:
            raw = "json_object_agg(a.id, a.%s ORDER BY a.id)%s::text" % (c, filt)
        items.append(X('text', raw=raw))
    if q.group and r.random() < 0.3:
        c = r.choice([c for c in cols if c['ty'] != 'double precision'] or cols)
        q.having = 'var_pop(a.%s) %s %d' % (c['name'], r.choice(['>', '<=']), r.choice([0, 1, 100]))
    items.append(X('bigint', raw='count(*)'))
    q.items = [(it, 'c%d' % (i + 1)) for i, it in enumerate(items)]
    case.label = 'sqlext:stats%s%s' % (' grouped' if q.group else '', ' (updating)' if w.sources[0].updating else '')
    case.models = [(D.FINAL_MODEL, q, 'retract')]


def gen_gsets(case, r, qr):
    w = F.World(r, case, 1, None, r.choice([0.0, 1.0]), nvalue=(1, 3))
    case.sources = w.sources
    case.events = w.events
    r = w.r = qr
    q = StatsQ()
    q.rel = '%s a' % F.src(w.sources[0].name)
    keys = ['a.k1'] + (['a.k2'] if w.has(0, 'k2') else [])
    others = [c['name'] for c in w.sources[0].cols if c['ty'] in ('boolean', 'text', 'integer', 'smallint')
              and c['name'] not in ('k1', 'k2')]
    if others:
        keys.append('a.' + r.choice(others))
    r.shuffle(keys)
    kind = r.choice(['rollup', 'cube', 'sets', 'mixed'])
    keys = keys[:r.randint(1, min(3, len(keys)))]
    if kind == 'rollup':
        q.group = 'ROLLUP (%s)' % ', '.join(keys)
    elif kind == 'cube':
        q.group = 'CUBE (%s)' % ', '.join(keys)
    elif kind == 'sets':
        sets = ['(%s)' % ', '.join(keys)] + ['(%s)' % ', '.join(r.sample(keys, r.randint(0, len(keys))))
                                             for _ in range(r.randint(0, 2))]
        r.shuffle(sets)
        q.group = 'GROUPING SETS (%s)' % ', '.join(sets)
    else:
        q.group = '%s, ROLLUP (%s)' % (keys[0], ', '.join(keys[1:])) if len(keys) > 1 else '%s, ()' % keys[0]
    items = [X('numeric', raw=k) for k in keys]
    g = w.gen(w.scope(0, 'a'))
    _, aggs = F.agg_items(r, g, [], case.nrows, w.sources[0].schema)
    items += aggs
    items.append(X('bigint', raw='count(*)'))
    if r.random() < 0.6:
        ks = r.sample(keys, r.randint(1, len(keys)))
        items.append(X('integer', raw='GROUPING(%s)' % ', '.join(ks)))
    if r.random() < 0.3:
        q.having = 'count(*) %s %d' % (r.choice(['>', '<=']), r.choice([1, 2, 5]))
    q.items = [(it, 'c%d' % (i + 1)) for i, it in enumerate(items)]
    case.label = 'sqlext:gsets %s%s' % (kind, ' (updating)' if w.sources[0].updating else '')
    case.models = [(D.FINAL_MODEL, q, 'retract')]


def gen_ordset(case, r, qr):
    w = F.World(r, case, 1, None, r.choice([0.0, 1.0]), nvalue=(2, 4))
    case.sources = w.sources
    case.events = w.events
    r = w.r = qr
    q = StatsQ()
    q.rel = '%s a' % F.src(w.sources[0].name)
    cols = w.sources[0].cols
    # values whose order and equality have one representation (a numeric of a declared
    # scale, not 1.5 and 1.50); percentile_cont takes any number as double precision
    exact = [c for c in cols if c['ty'] in ('bigint', 'integer', 'smallint', 'text', 'boolean', 'date', 'timestamp')
             or (c['ty'] == 'numeric' and c['decl'].startswith('numeric('))]
    nums = [c for c in cols if c['ty'] in ('bigint', 'integer', 'smallint', 'numeric', 'double precision')]
    items = []
    if r.random() < 0.7:
        q.group = 'a.k1'
        items.append(Col('a.k1', 'numeric', 100).x())
    for _ in range(r.randint(1, 4)):
        kind = r.choice(['mode', 'cont', 'disc'])
        desc = r.choice(['', '', ' DESC', ' ASC'])
        filt = ' FILTER (WHERE a.id %% %d <> 0)' % r.choice([2, 3]) if r.random() < 0.25 else ''
        frac = r.choice(['0', '0.1', '0.25', '0.5', '0.5', '0.75', '0.9', '1', '0.333'])
        if kind == 'cont' and nums:
            c = r.choice(nums)
            items.append(X('double precision', raw='percentile_cont(%s) WITHIN GROUP (ORDER BY a.%s%s)%s'
                           % (frac, c['name'], desc, filt), inexact=True))
        elif exact:
            c = r.choice(exact)
            if kind == 'mode':
                t = 'mode() WITHIN GROUP (ORDER BY a.%s%s)%s' % (c['name'], desc, filt)
            else:
                t = 'percentile_disc(%s) WITHIN GROUP (ORDER BY a.%s%s)%s' % (frac, c['name'], desc, filt)
            items.append(X(c['ty'], raw=t))
    items.append(X('bigint', raw='count(*)'))
    q.items = [(it, 'c%d' % (i + 1)) for i, it in enumerate(items)]
    case.label = 'sqlext:ordset%s%s' % (' grouped' if q.group else '', ' (updating)' if w.sources[0].updating else '')
    case.models = [(D.FINAL_MODEL, q, 'retract')]


def values_rows(r, nrows):
    """Rows (k integer, label text, w numeric) with NULLs and repeated keys."""
    keys = r.sample(range(0, 14), min(nrows, 14))
    if r.random() < 0.3:
        keys[-1] = keys[0]
    rows = []
    for k in keys:
        label = 'NULL' if r.random() < 0.15 else "'%s'" % r.choice(['x', 'y', 'z', 'long label', ''])
        wv = 'NULL' if r.random() < 0.15 else r.choice(['1.5', '2', '-3.25', '0', '10'])
        rows.append('(%s, %s, %s)' % ('NULL' if r.random() < 0.1 else k, label, wv))
    return 'VALUES ' + ', '.join(rows)


def gen_constrel(case, r, qr):
    w = F.World(r, case, 1, None, r.choice([0.0, 1.0]), nvalue=(1, 3))
    case.sources = w.sources
    case.events = w.events
    r = w.r = qr
    q = StatsQ()
    S = F.src(w.sources[0].name)
    kind = r.choice(['join', 'left', 'union', 'in', 'cross', 'agg'])
    vals = values_rows(r, r.randint(1, 6))
    items = []
    if kind in ('join', 'left'):
        if r.random() < 0.5:
            q.rel = '%s a %s (%s) AS t(k, label, w) ON t.k = a.k1' % (S, 'JOIN' if kind == 'join' else 'LEFT JOIN', vals)
        else:
            q.rel = '(%s) AS t(k, label, w) %s %s a ON a.k1 = t.k' % (vals, 'JOIN' if kind == 'join' else 'RIGHT JOIN', S)
        items = [X('bigint', raw='a.id'), X('text', raw='t.label'), X('numeric', raw='t.w')]
    elif kind == 'cross':
        q.rel = "%s a, (SELECT %d AS m, 'c' AS tag) c" % (S, r.choice([2, 3]))
        items = [X('bigint', raw='a.id'), X('text', raw='c.tag'), X('boolean', raw='a.id % c.m = 0')]
    elif kind == 'in':
        q.rel = '%s a WHERE a.k1 %sIN (SELECT t.k FROM (%s) AS t(k, label, w) WHERE t.k IS NOT NULL)' % (
            S, r.choice(['', 'NOT ']), vals)
        items = [X('bigint', raw='a.id'), X('numeric', raw='a.k1')]
    elif kind == 'agg':
        q.rel = '(%s) AS t(k, label, w) JOIN %s a ON a.k1 = t.k' % (vals, S)
        q.group = 't.label'
        items = [X('text', raw='t.label'), X('bigint', raw='count(*)'), X('numeric', raw='sum(t.w)')]
    else:
        q.rel = '%s a' % S
        q.group = 'a.k1'
        items = [X('numeric', raw='a.k1::numeric'), X('bigint', raw='count(*)')]
        tail = [' UNION ALL SELECT %d, 0' % r.choice([-1, 99]),
                ' UNION ALL SELECT k, 1 FROM (%s) AS t(k, label, w)' % vals,
                ' UNION ALL VALUES (-5, 7), (NULL, 8)']
        q.suffix = ''.join(r.sample(tail, r.randint(1, 3)))
    q.items = [(it, 'c%d' % (i + 1)) for i, it in enumerate(items)]
    case.label = 'sqlext:constrel %s%s' % (kind, ' (updating)' if w.sources[0].updating else '')
    case.models = [(D.FINAL_MODEL, q, 'retract')]


def subq_item(w, r, si, ia):
    """One subquery expression of the `subq` shape over source si (alias ia), as
    (X, where): where=True for a condition of the outer WHERE."""
    S = F.src(w.sources[si].name)
    kind = r.choice(['uncorr-id', 'uncorr-top', 'corr-top', 'corr-top', 'in-distinct', 'in-top', 'exists-limit',
                     'exists-group', 'grouped-from', 'grouped-max', 'having', 'bool', 'topn-where',
                     'in-distinct-on', 'nearest', 'offset', 'offset', 'limit0', 'setop', 'setop'])
    desc = r.choice(['', ' DESC', ' DESC NULLS LAST', ' NULLS FIRST'])
    if kind == 'uncorr-id':
        # at most one row (id is unique): NULL or the value
        return X('numeric', raw='(SELECT %s.k1 FROM %s %s WHERE %s.id = %d)' % (ia, S, ia, ia, r.randint(0, 30))), False, kind
    if kind == 'uncorr-top':
        g = w.gen(w.scope(si, ia))
        flt = ' WHERE ' + g.expr('bool', 1, need_col=True).sql() if r.random() < 0.4 else ''
        return X('numeric', raw='(SELECT %s.k1 FROM %s %s%s ORDER BY %s.k1%s, %s.id LIMIT 1)'
                 % (ia, S, ia, flt, ia, desc, ia)), False, kind
    if kind in ('corr-top', 'topn-where'):
        x = X('bigint', raw='(SELECT %s.id FROM %s %s WHERE %s ORDER BY %s.k1%s, %s.id%s LIMIT 1)'
              % (ia, S, ia, corr_where(w, r, si, ia), ia, desc, ia, r.choice(['', ' DESC'])))
        if kind == 'topn-where':
            return X('boolean', '(coalesce({0}, 0) %s a.id)' % r.choice(['<', '>=', '<>']), [x]), True, kind
        return x, False, kind
    if kind == 'in-distinct':
        where = ' WHERE ' + corr_where(w, r, si, ia) if r.random() < 0.6 else ''
        t = '(a.k1 %s (SELECT DISTINCT %s.k1 FROM %s %s%s))' % (r.choice(['IN', 'NOT IN']), ia, S, ia, where)
        return X('boolean', raw=t), r.random() < 0.4, kind
    if kind == 'setop':
        # a set operation as the body, its branches correlated (or not)
        S0 = F.src(w.sources[0].name)
        u = r.random()
        if u < 0.35:
            t = '(a.k1 %s (SELECT %s.k1 FROM %s %s WHERE %s %s SELECT j.k1 FROM %s j WHERE j.id %s a.id))' % (
                r.choice(['IN', 'NOT IN']), ia, S, ia, corr_where(w, r, si, ia), r.choice(['UNION', 'UNION ALL', 'EXCEPT']),
                S0, r.choice(['=', '<']))
            return X('boolean', raw=t), r.random() < 0.4, kind
        if u < 0.7:
            g = w.gen(w.scope(si, 'j'))
            t = '(%sEXISTS (SELECT %s.k1 FROM %s %s WHERE %s %s SELECT j.k1 FROM %s j WHERE %s))' % (
                r.choice(['', 'NOT ']), ia, S, ia, corr_where(w, r, si, ia), r.choice(['INTERSECT', 'EXCEPT', 'UNION']),
                S, g.expr('bool', 1, need_col=True).sql())
            return X('boolean', raw=t), r.random() < 0.5, kind
        return X('bigint', raw='(SELECT %s.id FROM %s %s WHERE %s UNION SELECT a.id %% 7 ORDER BY 1%s LIMIT 1)' % (
            ia, S, ia, corr_where(w, r, si, ia), r.choice(['', ' DESC']))), False, kind
    if kind == 'limit0':
        t = r.choice(['(SELECT %s.k1 FROM %s %s WHERE %s LIMIT 0)' % (ia, S, ia, corr_where(w, r, si, ia)),
                      '(a.k1 NOT IN (SELECT %s.k1 FROM %s %s ORDER BY %s.id LIMIT 0))' % (ia, S, ia, ia)])
        return X('boolean' if 'NOT IN' in t else 'numeric', raw=t), False, kind
    if kind == 'offset':
        # the second (third) row per outer value, or uncorrelated
        where = ' WHERE ' + corr_where(w, r, si, ia) if r.random() < 0.7 else ''
        x = X('bigint', raw='(SELECT %s.id FROM %s %s%s ORDER BY %s.k1%s, %s.id LIMIT 1 OFFSET %d)'
              % (ia, S, ia, where, ia, desc, ia, r.choice([1, 1, 2])))
        if r.random() < 0.3:
            return X('boolean', raw='(a.k1 IN (SELECT %s.k1 FROM %s %s ORDER BY %s.id LIMIT %d OFFSET %d))' % (
                ia, S, ia, ia, r.choice([2, 3]), r.choice([1, 4]))), r.random() < 0.5, kind
        return x, False, kind
    if kind == 'nearest':
        # ordered by an expression over the outer row: the nearest inner row per outer value
        return X('bigint', raw='(SELECT %s.id FROM %s %s ORDER BY abs(%s.k1 - a.k1)%s, %s.id LIMIT 1)'
                 % (ia, S, ia, ia, r.choice(['', ' DESC', ' NULLS FIRST']), ia)), False, kind
    if kind == 'in-distinct-on':
        # the row of each k1 with the largest id (id is unique: no ties)
        t = '(a.id IN (SELECT DISTINCT ON (%s.k1) %s.id FROM %s %s WHERE %s ORDER BY %s.k1, %s.id DESC))' % (
            ia, ia, S, ia, corr_where(w, r, si, ia), ia, ia)
        return X('boolean', raw=t), r.random() < 0.4, kind
    if kind == 'in-top':
        t = '(a.k1 IN (SELECT %s.k1 FROM %s %s ORDER BY %s.id%s LIMIT %d))' % (ia, S, ia, ia, r.choice(['', ' DESC']),
                                                                            r.choice([1, 3, 5]))
        return X('boolean', raw=t), r.random() < 0.4, kind
    if kind == 'exists-limit':
        t = '%sEXISTS (SELECT 1 FROM %s %s WHERE %s LIMIT 1)' % (r.choice(['', 'NOT ']), S, ia, corr_where(w, r, si, ia))
        if r.random() < 0.5:
            return X('boolean', raw='(%s)' % t), True, kind
        return X('text', raw="CASE WHEN %s THEN 'yes' ELSE 'no' END" % t), False, kind
    if kind == 'exists-group':
        t = 'EXISTS (SELECT %s.k1 FROM %s %s WHERE %s GROUP BY %s.k1 HAVING count(*) %s)' % (
            ia, S, ia, corr_where(w, r, si, ia), ia, r.choice(['> 1', '>= 1', '= 2']))
        return X('boolean', raw='(%s)' % t), r.random() < 0.5, kind
    if kind == 'grouped-from':
        return X('bigint', raw='(SELECT s.n FROM (SELECT %s.k1, count(*) AS n FROM %s %s GROUP BY %s.k1) s '
                 'WHERE s.k1 = a.k1)' % (ia, S, ia, ia)), False, kind
    if kind == 'grouped-max':
        return X('bigint', raw='(SELECT max(s.n) FROM (SELECT %s.k1, count(*) AS n FROM %s %s GROUP BY %s.k1) s)'
                 % (ia, S, ia, ia)), False, kind
    if kind == 'having':
        return X('bigint', raw='(SELECT count(*) FROM %s %s WHERE %s HAVING count(*) %s)'
                 % (S, ia, corr_where(w, r, si, ia), r.choice(['> 1', '< 3', '<> 1']))), False, kind
    # a boolean select list, at most one row (id is unique)
    return X('boolean', raw='(SELECT %s.k1 > a.k1 FROM %s %s WHERE %s.id = a.id%s)'
             % (ia, S, ia, ia, r.choice(['', ' + 1']))), False, kind


def gen_subq(case, r, qr):
    """Subquery expressions whose body has DISTINCT, GROUP BY, HAVING without GROUP BY,
    ORDER BY ... LIMIT (a TopN per outer value), EXISTS ... LIMIT, uncorrelated ones that
    are not aggregates, boolean values, and subqueries inside VALUES rows."""
    w = F.World(r, case, 2, None, r.choice([0.0, 0.5, 1.0]))
    case.sources = w.sources
    case.events = w.events
    r = w.r = qr
    q = CorrQ()
    q.outer = '%s a' % F.src(w.sources[0].name)
    g = w.gen(w.scope(0, 'a'))
    items = [Col('a.id', 'bigint', 10 ** 6).x()]
    kinds = []
    if r.random() < 0.15:
        S1 = F.src(w.sources[1].name)
        q.outer += (", (VALUES ((SELECT count(*) FROM %s i), 'n'), ((SELECT max(i.id) FROM %s i WHERE i.k1 = %d), 'm'),"
                    " (%d, 'c')) AS t(x, tag)" % (S1, S1, r.randint(1, 6), r.randint(0, 9)))
        items += [X('text', raw='t.tag'), X('bigint', raw='t.x')]
        kinds.append('values')
    for n in range(r.randint(1, 2)):
        ia = 'i%d' % (n + 1)
        si = 1 if r.random() < 0.8 else 0
        x, where, kind = subq_item(w, r, si, ia)
        kinds.append(kind)
        if where and x.ty == 'boolean':
            name = 'w%d' % n
            if r.random() < 0.4:
                q.slots[name] = X('boolean', '(%s OR {0})' % x.sql(), [g.expr('bool', 1, need_col=True)])
            else:
                q.slots[name] = x
            q.conds.append(name)
        else:
            items.append(x)
    if r.random() < 0.3:
        items += F.pick_items(g, r, 1)
    q.items = [(it, 'c%d' % (i + 1)) for i, it in enumerate(items)]
    if 'values' not in kinds and r.random() < 0.15:
        # the model's own TopN with OFFSET (a.id is unique: a total order)
        q.suffix = ' ORDER BY c1%s LIMIT %d OFFSET %d' % (r.choice(['', ' DESC']), r.choice([1, 5, 20]),
                                                          r.choice([0, 1, 7]))
        kinds.append('offset-top')
    case.label = 'sqlext:subq %s%s' % (', '.join(kinds), ' (updating)' if any(s.updating for s in w.sources) else '')
    case.models = [(D.FINAL_MODEL, q, 'retract')]


class StrWinQ(F.OverQ):
    family = 'sqlext'


def gen_strings(case, r, qr):
    """string_agg beyond the stats shape: as a window function over an event-time order
    (distinct times: PostgreSQL joins peers in no set order), and DISTINCT with a
    delimiter per row, ordered by the value or the delimiter, any NULLS placement."""
    if case.seed % 2 == 0:
        w = F.World(r, case, 1, 'distinct', [False], nvalue=(2, 4), kdiv=(15, 40, 100))
        case.sources = w.sources
        case.events = w.events
        r = w.r = qr
        q = StrWinQ()
        q.rel = '%s a' % F.src(w.sources[0].name)
        texts = [c['name'] for c in w.sources[0].cols if c['ty'] == 'text']
        if not texts:
            texts = ['k2'] if w.has(0, 'k2') else []
        part = r.choice(['', 'PARTITION BY a.k1 ', 'PARTITION BY a.k1 '])
        items = [Col('a.id', 'bigint', 10 ** 6).x()]
        for _ in range(r.randint(1, 3)):
            frame = r.choice(['', ' ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW', ' ROWS %d PRECEDING' % r.choice([0, 1, 2]),
                              " RANGE BETWEEN INTERVAL '%d seconds' PRECEDING AND CURRENT ROW" % r.choice([0, 1, 3, 10]),
                              ' RANGE UNBOUNDED PRECEDING'])
            if texts:
                t = r.choice(texts)
                sep = r.choice(["','", "' | '", "''", 'NULL', 'a.%s' % r.choice(texts)])
                x = "string_agg(a.%s, %s)" % (t, sep)
            else:
                x = "string_agg(a.id::text, ',')"
            items.append(X('text', raw='%s OVER (%sORDER BY a.et%s)' % (x, part, frame), iscol=True))
        q.items = [(it, 'c%d' % (i + 1)) for i, it in enumerate(items)]
        q.keep_items = set([a for it, a in q.items if 'OVER' in (it.raw or '')][:1])
        case.label = 'sqlext:strings over'
        case.models = [(D.FINAL_MODEL, q, 'append')]
        return
    w = F.World(r, case, 1, None, r.choice([0.0, 1.0]), nvalue=(2, 4))
    case.sources = w.sources
    case.events = w.events
    r = w.r = qr
    q = StatsQ()
    q.rel = '%s a' % F.src(w.sources[0].name)
    texts = [c['name'] for c in w.sources[0].cols if c['ty'] == 'text'] or (['k2'] if w.has(0, 'k2') else [])
    items = []
    if r.random() < 0.7:
        q.group = 'a.k1'
        items.append(Col('a.k1', 'numeric', 100).x())
    for _ in range(r.randint(1, 3)):
        if not texts:
            break
        t, d = r.choice(texts), r.choice(texts)
        dl = r.choice(['a.%s' % d, "CASE WHEN a.id %% 2 = 0 THEN ',' ELSE NULL END" % (), "a.%s || '/'" % d])
        order = r.choice(['', ' ORDER BY a.%s' % t, ' ORDER BY %s' % dl])
        if order:
            order += r.choice(['', ' DESC', ' ASC', ' NULLS FIRST', ' DESC NULLS LAST', ' ASC NULLS LAST',
                               ' DESC NULLS FIRST'])
        items.append(X('text', raw='string_agg(DISTINCT a.%s, %s%s)' % (t, dl, order)))
    if texts and r.random() < 0.4:
        # NULLS placement on another key, made total by id
        items.append(X('text', raw="string_agg(a.%s, ',' ORDER BY a.id%s)" % (
            r.choice(texts), r.choice([' NULLS FIRST', ' DESC NULLS LAST']))))
    items.append(X('bigint', raw='count(*)'))
    q.items = [(it, 'c%d' % (i + 1)) for i, it in enumerate(items)]
    case.label = 'sqlext:strings distinct%s' % (' (updating)' if w.sources[0].updating else '')
    case.models = [(D.FINAL_MODEL, q, 'retract')]


SHAPES = [gen_comma, gen_corr, gen_stats, gen_gsets]
# Seeds from 21000 on also draw the shapes added later (older seeds keep their queries).
SHAPES_2 = SHAPES + [gen_ordset, gen_constrel]


def gen_sqlext(case, r, qr):
    if 22000 <= case.seed < 23000:
        # seeds 22000-22999: the subq shape only
        return gen_subq(case, r, qr)
    if 23000 <= case.seed < 24000:
        # seeds 23000-23999: the strings shape only
        return gen_strings(case, r, qr)
    shapes = SHAPES_2 if case.seed >= 21000 else SHAPES
    shapes[case.seed % len(shapes)](case, r, qr)
