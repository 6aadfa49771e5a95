#!/usr/bin/env python3
"""Nexmark correctness: every model of bench/nexmark against PostgreSQL.

For each dataset (a deterministic build/nexmark_gen run: seed, event count, rate, base
time) the bench/nexmark project is copied into a temp dir with the generated data and
a models/schema.yml that keeps each model's materialization and key and adds a
changelog-json file sink. Each model runs alone (`weir run --select qN`); its final
state is the replay of its changelog (keyed by the presentation key from `weir explain
--format json`, else a multiset). PostgreSQL runs bench/nexmark/pg/qN.sql over the
same rows (tables person, auction, bid, side_input). The two multisets of rows are
compared column by column, by weir's column type: integers and numerics by Decimal
value, floats with a relative tolerance of 1e-9, timestamps normalised to
'YYYY-MM-DD HH:MM:SS.ffffff', dates and text as text.

The semantics compared are weir's documented ones: at the end of a bounded input every
window closes, so the final state equals the batch result over all rows, unless rows
were dead-lettered (late); any dead letter fails the query. Where ROW_NUMBER ties could
make either result right, pg/<model>.ambiguous.sql finds them (see TIED_RANKS).
Files in bench/nexmark/unsupported/ are re-checked and reported when they start to bind.

Prints one line per model (PASS/FAIL, rows, time) and closes with "N passed, N failed".
Used by tests/scripts/nexmark.sh; stdlib only.
"""
import argparse
import collections
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import time
from decimal import Decimal

HERE = os.path.dirname(os.path.abspath(__file__))

# (seed, events, rate, base time). Rates of at most 1,000 events/s give every event its
# own millisecond, so ORDER BY date_time in TopN and dedup queries rarely ties (ties are
# handled anyway: TIED_RANKS below). More than 4,096 bids make weir read bids
# in several steps (the runtime's batch size), so windows close and joins match across
# steps. Dataset 1 crosses midnight (q10, q15-q17 group by day), dataset 2 crosses 19:00
# (q14: dayTime -> otherTime), dataset 3 is denser (one event per ms, 20 s of event time:
# more bids per auction and per window) and crosses 08:00 (otherTime -> dayTime).
DATASETS = [
    (1, 20000, 50, '2015-07-15 23:58:30'),
    (2, 8000, 20, '2015-07-15 18:58:00'),
    (3, 20000, 1000, '2015-07-15 07:59:55'),
]

TS_RE = re.compile(r'^(\d{4,})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(\.\d+)?$')


class Bad:
    """A value that does not have the column's type: never equal to anything."""

    def __init__(self, v):
        self.v = v

    def __repr__(self):
        return 'BAD(%r)' % (self.v,)

    def __eq__(self, other):
        return False

    def __hash__(self):
        return 0


def kind_of(pgtype):
    t = pgtype.split('(')[0].strip()
    if t in ('smallint', 'integer', 'bigint', 'numeric'):
        return 'num'
    if t in ('real', 'double precision'):
        return 'float'
    if t == 'boolean':
        return 'bool'
    if t.startswith('timestamp'):
        return 'ts'
    return 'text'  # text, varchar, date (ISO text on both sides), interval


def canon_decimal(d):
    d = d.normalize()
    return Decimal(0) if d == 0 else d


def norm(kind, v):
    if v is None:
        return None
    try:
        if kind == 'num':
            if isinstance(v, bool):
                return Bad(v)
            return canon_decimal(Decimal(v)) if isinstance(v, (int, Decimal)) else Bad(v)
        if kind == 'float':
            if isinstance(v, str):
                return float(v) if v in ('NaN', 'Infinity', '-Infinity') else Bad(v)
            return float(v) + 0.0
        if kind == 'bool':
            return v if isinstance(v, bool) else Bad(v)
        if kind == 'ts':
            m = TS_RE.match(v) if isinstance(v, str) else None
            if not m:
                return Bad(v)
            frac = (m.group(7) or '.')[1:]
            return '%s-%s-%s %s:%s:%s.%06d' % (m.group(1), m.group(2), m.group(3), m.group(4),
                                               m.group(5), m.group(6), int((frac + '000000')[:6]))
        return v if isinstance(v, str) else Bad(v)
    except Exception:  # noqa: BLE001 - any conversion failure is a mismatch
        return Bad(v)


def rows_equal(a, b):
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if isinstance(x, float) and isinstance(y, float):
            if x != x and y != y:
                continue
            if abs(x - y) > 1e-9 * max(1.0, abs(x), abs(y)):
                return False
        elif x != y:
            return False
    return True


def multiset_diff(expected, actual, has_float):
    """(missing, extra): rows only PostgreSQL has, rows only weir has."""
    if not has_float:
        e, a = collections.Counter(expected), collections.Counter(actual)
        return list((e - a).elements()), list((a - e).elements())
    # floats: match greedily within the tolerance (sorted so close rows meet)
    key = lambda r: tuple((0, '') if v is None else (1, repr(v)) for v in r)  # noqa: E731
    rest = sorted(actual, key=key)
    missing = []
    for r in sorted(expected, key=key):
        for i, s in enumerate(rest):
            if rows_equal(r, s):
                del rest[i]
                break
        else:
            missing.append(r)
    return missing, rest


# Queries whose ROW_NUMBER output is only determined up to ties: rows with equal
# partition and ORDER BY values may be numbered in either order (PostgreSQL and weir
# break ties differently), and when such a group straddles the cut-off (rn <= N), which
# of its rows are kept is unspecified too. Both results are canonicalised: within each
# group of tied rows the group's row numbers (if the query outputs them: 'rank') are
# reassigned in the order of the rows' other columns, and in the groups that
# pg/<model>.ambiguous.sql lists (those straddling the cut-off; its columns are the
# partition and order columns) the other columns are masked, so only the group's row
# count, key and row numbers are compared.
TIED_RANKS = {
    'q9': {'partition': ['id'], 'order': ['price', 'bid_date_time'], 'rank': None},
    'q18': {'partition': ['bidder', 'auction'], 'order': ['date_time'], 'rank': None},
    'q19': {'partition': ['auction'], 'order': ['price'], 'rank': 'rank_number'},
}
TIE = '<tie>'


def untie(name, cols, rows, straddling):
    t = TIED_RANKS.get(name)
    if not t:
        return rows
    gi = [cols.index(c) for c in t['partition'] + t['order']]
    ri = cols.index(t['rank']) if t['rank'] else -1
    groups = collections.defaultdict(list)
    for r in rows:
        groups[tuple(r[i] for i in gi)].append(r)
    key = lambda r: tuple(repr(v) for j, v in enumerate(r) if j != ri)  # noqa: E731
    out = []
    for gk, g in groups.items():
        if gk in straddling:
            g = [tuple(v if j in gi or j == ri else TIE for j, v in enumerate(r)) for r in g]
        if ri < 0:
            out.extend(g)
            continue
        ranks = sorted(r[ri] for r in g)
        for rank, r in zip(ranks, sorted(g, key=key)):
            out.append(r[:ri] + (rank,) + r[ri + 1:])
    return out


def fmt_row(names, row):
    return '{' + ', '.join('%s: %s' % (n, 'NULL' if v is None else v) for n, v in zip(names, row)) + '}'


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def psql_binary():
    """The real psql: Debian's /usr/bin/psql is a Perl wrapper that costs ~70 ms a call."""
    found = sorted(glob.glob('/usr/lib/postgresql/*/bin/psql'),
                   key=lambda p: [int(x) for x in re.findall(r'\d+', p)])
    return found[-1] if found else 'psql'


PSQL = psql_binary()


def psql(sql, timeout=120):
    p = run([PSQL, '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-f', '-'], input=sql, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError(p.stderr.strip() or 'psql failed')
    return p.stdout


def run_summary(text):
    """The run summary: the last JSON object on stdout with events_per_s (weir may print
    its check warnings as a JSON array first)."""
    dec = json.JSONDecoder()
    i, found = 0, None
    while True:
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            return found
        try:
            v, i = dec.raw_decode(text, i)
        except ValueError:
            return found
        if isinstance(v, dict) and 'events_per_s' in v:
            found = v


def csv_field(v):
    if v is None:
        return '\\N'
    if isinstance(v, bool):
        v = 'true' if v else 'false'
    return '"' + str(v).replace('"', '""') + '"'


def read_jsonl(path):
    with open(path) as f:
        for line in f:
            if line.strip():
                yield json.loads(line, parse_float=Decimal)


class Dataset:
    def __init__(self, idx, seed, events, rate, base, args, sources):
        self.idx, self.seed, self.events, self.rate, self.base = idx, seed, events, rate, base
        self.label = 'seed %d, %d events, rate %d/s, from %s' % (seed, events, rate, base)
        self.schema = 'nx%d' % idx
        self.dir = os.path.join(args.tmp, 'ds%d' % idx)
        self.proj = os.path.join(self.dir, 'project')
        self.out = os.path.join(self.dir, 'out')
        self.args = args
        self.sources = sources
        self.error = None

    def prepare(self, models):
        a = self.args
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.out)
        shutil.copytree(a.project, self.proj, ignore=shutil.ignore_patterns('target', '.weir', 'data', 'pg',
                                                                              'unsupported', '*.py'))
        data = os.path.join(self.proj, 'data')
        os.makedirs(data)
        shutil.copy(os.path.join(a.project, 'data', 'side_input.jsonl'), data)
        p = run([a.gen, '--events', str(self.events), '--seed', str(self.seed), '--rate', str(self.rate),
                 '--base-time', self.base, '--out-dir', data])
        if p.returncode != 0:
            raise RuntimeError('nexmark_gen failed: ' + p.stderr.strip())
        # the project's own models/*.yml carry materializations: replace them with one
        # schema.yml that keeps materialized/key and adds a changelog-json file sink
        for y in glob.glob(os.path.join(self.proj, 'models', '**', '*.yml'), recursive=True):
            os.remove(y)
        lines = ['models:']
        for m in models.values():
            lines.append('  %s:' % m['name'])
            lines.append('    materialized: %s' % m['materialized'])
            if m['materialized'] in ('upsert', 'table') and m['key']:
                lines.append('    key: [%s]' % ', '.join(m['key']))
            lines.append('    sink: {connector: file, path: "%s", format: changelog-json}'
                         % os.path.join(self.out, m['name'] + '.jsonl'))
        with open(os.path.join(self.proj, 'models', 'schema.yml'), 'w') as f:
            f.write('\n'.join(lines) + '\n')

    def load_pg(self):
        sql = ['DROP SCHEMA IF EXISTS %s CASCADE;' % self.schema, 'CREATE SCHEMA %s;' % self.schema]
        for name, cols in self.sources.items():
            table = '%s.%s' % (self.schema, name.split('.')[-1])
            sql.append('CREATE TABLE %s (%s);' % (table, ', '.join('"%s" %s' % (c['name'], c['type']) for c in cols)))
            path = os.path.join(self.proj, 'data', name.split('.')[-1] + '.jsonl')
            csv_path = os.path.join(self.dir, name.split('.')[-1] + '.csv')
            names = [c['name'] for c in cols]
            # CSV with every value quoted and NULL as an unquoted \N, so '' stays ''
            with open(csv_path, 'w') as f:
                for row in read_jsonl(path):
                    f.write(','.join(csv_field(row.get(n)) for n in names) + '\n')
            sql.append("\\copy %s FROM '%s' WITH (FORMAT csv, NULL '\\N')" % (table, csv_path))
        psql('\n'.join(sql) + '\n')

    def pg_rows(self, name, suffix='.sql'):
        with open(os.path.join(self.args.project, 'pg', name + suffix)) as f:
            q = f.read().strip().rstrip(';')
        out = psql('SET search_path = %s;\nSELECT row_to_json(t)::text FROM (\n%s\n) t;\n' % (self.schema, q))
        return [json.loads(line, parse_float=Decimal) for line in out.splitlines() if line.strip()]

    def weir_rows(self, m):
        """Runs the model; returns (rows as dicts, problems)."""
        a = self.args
        path = os.path.join(self.out, m['name'] + '.jsonl')
        if os.path.exists(path):
            os.remove(path)
        p = run([a.weir, '--project-dir', self.proj, '--select', m['name'], 'run', '--no-progress',
                 '--format', 'json'], timeout=a.timeout)
        if p.returncode != 0:
            tail = (p.stderr.strip() or p.stdout.strip()).splitlines()[-5:]
            return None, ['weir run exited %d: %s' % (p.returncode, ' | '.join(tail))]
        problems = []
        summary = run_summary(p.stdout)
        if summary is None:
            return None, ['weir run printed no JSON summary: %s' % p.stdout[-300:]]
        if summary.get('dead_letters'):
            dl = glob.glob(os.path.join(self.proj, 'target', 'dead_letter', '*.jsonl'))
            first = ''
            for f in dl:
                with open(f) as fh:
                    first = fh.readline().strip()[:300]
                    break
            problems.append('%s dead letter(s), e.g. %s' % (summary['dead_letters'], first))
        if not os.path.exists(path):
            return [], problems  # no change ever written: an empty result
        key = m['key']
        cols = [c['name'] for c in m['columns']]
        kinds = [kind_of(c['type']) for c in m['columns']]
        keyed = {}
        bag = collections.Counter()
        anomalies = collections.Counter()
        for rec in read_jsonl(path):
            op = rec.pop('op', None)
            row = tuple(norm(k, rec.get(c)) for c, k in zip(cols, kinds))
            if key:
                kt = tuple(row[cols.index(c)] for c in key)
                if op == 'insert':
                    if kt in keyed:
                        anomalies['insert of a key already present'] += 1
                    keyed[kt] = row
                elif op == 'update':
                    if kt not in keyed:
                        anomalies['update of an absent key'] += 1
                    keyed[kt] = row
                elif op == 'delete':
                    if keyed.pop(kt, None) is None:
                        anomalies['delete of an absent key'] += 1
                else:
                    anomalies['unknown op %r' % op] += 1
            else:
                if op == 'insert':
                    bag[row] += 1
                elif op == 'delete':
                    if bag[row] <= 0:
                        anomalies['delete of an absent row'] += 1
                    bag[row] -= 1
                    if bag[row] == 0:
                        del bag[row]
                else:
                    anomalies['op %r on a keyless model' % op] += 1
        for what, n in sorted(anomalies.items()):
            problems.append('changelog: %d x %s' % (n, what))
        rows = list(keyed.values()) if key else list(bag.elements())
        return rows, problems


def check(ds, m):
    """Returns (ok, nrows_pg, nrows_weir, messages)."""
    cols = [c['name'] for c in m['columns']]
    kinds = [kind_of(c['type']) for c in m['columns']]
    actual, problems = ds.weir_rows(m)
    straddling = set()
    try:
        # pg/<model>.ambiguous.sql (optional) lists ties that leave the result unspecified
        if os.path.exists(os.path.join(ds.args.project, 'pg', m['name'] + '.ambiguous.sql')):
            ties = ds.pg_rows(m['name'], '.ambiguous.sql')
            t = TIED_RANKS.get(m['name'])
            if ties and not t:
                return False, None, None, ['the input is ambiguous for this query (ties that ROW_NUMBER may '
                                           'break either way), e.g. %s; choose another seed' % ties[0]]
            if ties:
                kc = t['partition'] + t['order']
                kk = [kinds[cols.index(c)] for c in kc]
                straddling = {tuple(norm(k, r[c]) for c, k in zip(kc, kk)) for r in ties}
        pg = ds.pg_rows(m['name'])
    except Exception as e:  # noqa: BLE001
        return False, None, None if actual is None else len(actual), problems + ['PostgreSQL: %s' % e]
    expected = []
    for r in pg:
        missing = [c for c in cols if c not in r]
        if missing:
            return False, len(pg), None, problems + ['PostgreSQL result lacks column(s) %s' % ', '.join(missing)]
        expected.append(tuple(norm(k, r[c]) for c, k in zip(cols, kinds)))
    if actual is None:
        return False, len(expected), None, problems
    expected = untie(m['name'], cols, expected, straddling)
    actual = untie(m['name'], cols, actual, straddling)
    miss, extra = multiset_diff(expected, actual, 'float' in kinds)
    msgs = list(problems)
    if miss or extra:
        msgs.append('%d row(s) only in PostgreSQL, %d only in weir' % (len(miss), len(extra)))
        for r in miss[:3]:
            msgs.append('  - postgres only: ' + fmt_row(cols, r))
        for r in extra[:3]:
            msgs.append('  + weir only:     ' + fmt_row(cols, r))
    return not msgs, len(expected), len(actual), msgs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--weir', required=True)
    ap.add_argument('--gen', required=True, help='the nexmark_gen binary')
    ap.add_argument('--project', default=HERE)
    ap.add_argument('--tmp', required=True, help='scratch directory')
    ap.add_argument('--select', help='comma-separated models (default: all in models/)')
    ap.add_argument('--dataset', action='append', metavar='SEED,EVENTS,RATE,BASE',
                    help="replaces the default datasets, e.g. 7,5000,50,'2015-07-15 00:00:00'")
    ap.add_argument('--timeout', type=int, default=300, help='seconds per weir run')
    args = ap.parse_args()

    datasets = DATASETS
    if args.dataset:
        datasets = []
        for d in args.dataset:
            seed, events, rate, base = d.split(',', 3)
            datasets.append((int(seed), int(events), int(rate), base))

    # explain and compile a copy (with the sample data), so nothing is written into the tree
    base = os.path.join(args.tmp, 'base')
    shutil.copytree(args.project, base, ignore=shutil.ignore_patterns('target', '.weir', '__pycache__'))
    p = run([args.weir, '--project-dir', base, 'explain', '--format', 'json'])
    if p.returncode != 0:
        print('weir explain failed on %s:\n%s' % (args.project, p.stderr), file=sys.stderr)
        print('0 passed, 1 failed')
        return 1
    models = collections.OrderedDict((m['name'], m) for m in json.loads(p.stdout)['models'])
    p = run([args.weir, '--project-dir', base, 'compile'])
    with open(os.path.join(base, 'target', 'manifest.json')) as f:
        sources = collections.OrderedDict((s['name'], s['columns']) for s in json.load(f)['sources'])

    def order(name):
        m = re.match(r'q(\d+)(.*)', name)
        return (int(m.group(1)), m.group(2)) if m else (1 << 30, name)

    names = sorted(models, key=order)
    if args.select:
        want = args.select.split(',')
        unknown = [w for w in want if w not in models]
        if unknown:
            print('unknown model(s): %s' % ', '.join(unknown), file=sys.stderr)
            return 2
        names = [n for n in names if n in want]

    dss = []
    for i, (seed, events, rate, base) in enumerate(datasets, 1):
        ds = Dataset(i, seed, events, rate, base, args, sources)
        try:
            ds.prepare(models)
            ds.load_pg()
        except Exception as e:  # noqa: BLE001
            ds.error = str(e)
        dss.append(ds)
        print('dataset %d: %s%s' % (i, ds.label, '' if not ds.error else ' -- ERROR: ' + ds.error))
    sys.stdout.flush()

    # bench/nexmark/unsupported/*.sql: the Flink forms weir rejects; say if one now binds
    ready = [ds for ds in dss if not ds.error]
    if ready and not args.select:
        for path in sorted(glob.glob(os.path.join(args.project, 'unsupported', '*.sql')), key=lambda f: order(
                os.path.basename(f)[:-4])):
            name = os.path.basename(path)[:-4]
            proj = os.path.join(args.tmp, 'unsupported-' + name)
            shutil.rmtree(proj, ignore_errors=True)
            shutil.copytree(ready[0].proj, proj, ignore=shutil.ignore_patterns('models', 'target'))
            os.makedirs(os.path.join(proj, 'models'))
            shutil.copy(path, os.path.join(proj, 'models', name + '.sql'))
            p = run([args.weir, '--project-dir', proj, 'check', '--format', 'json'])
            errors = []
            try:
                errors = [d['message'] for d in json.loads(p.stdout)['diagnostics'] if d['severity'] == 'error']
            except (ValueError, KeyError):
                errors = [p.stderr.strip() or 'weir check exited %d' % p.returncode]
            if errors:
                print('unsupported/%s.sql: still rejected: %s' % (name, errors[0]))
            else:
                print('unsupported/%s.sql: NOW PASSES weir check -- move it to models/ (or update the README)' % name)
    sys.stdout.flush()

    passed = failed = 0
    for name in names:
        m = models[name]
        t0 = time.time()
        ok = True
        counts, msgs = [], []
        for ds in dss:
            if ds.error:
                ok = False
                msgs.append('dataset %d: %s' % (ds.idx, ds.error))
                continue
            good, n_pg, n_weir, lines = check(ds, m)
            counts.append('%s/%s' % ('-' if n_pg is None else n_pg, '-' if n_weir is None else n_weir))
            if not good:
                ok = False
                msgs.append('dataset %d (%s):' % (ds.idx, ds.label))
                msgs.extend('    ' + line for line in lines)
        rows = ' '.join(counts)
        print('%s %-14s rows pg/weir %s  (%.1fs)' % ('PASS' if ok else 'FAIL', name, rows, time.time() - t0))
        for line in msgs:
            print('    ' + line)
        sys.stdout.flush()
        if ok:
            passed += 1
        else:
            failed += 1
    print('%d passed, %d failed' % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
