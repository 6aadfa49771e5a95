"""The `sqlext` family of the differential tester (seeds 20001-29999, see README.md):
SQL forms beyond the cycle's families. The shape of a seed is SHAPES[seed % len(SHAPES)]:

  comma   FROM of 3-8 sources separated by commas, their join conditions in WHERE
          (a spanning tree of equalities over `id` and `k1`, in an order unrelated to
          the FROM order, plus filters and non-equality conditions): the cross product
          of the inputs would be far too large, a join in a connected order is small.

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


SHAPES = [gen_comma]


def gen_sqlext(case, r, qr):
    SHAPES[case.seed % len(SHAPES)](case, r, qr)
