#!/usr/bin/env python3
"""`weir run --workers N` never changes a result (driven by tests/scripts/workers.sh).

Every example and test project that has data, and a generated Nexmark project (with
malformed lines and late bids among its input, so sources and windows write dead
letters), runs with --workers 1, 2 and 3 and --batch-size 1, 7 and 4096, every model
with a SQLite sink. For one batch size, the runs with 2 and 3 workers must equal the run
with one byte for byte: every sink table in row order, every dead-letter file, the run
summary's counts. Across batch sizes (where the order of changes within the run is free)
the final tables, sorted, and the dead letters, sorted, must be equal."""
import datetime
import glob
import json
import os
import shutil
import sqlite3
import subprocess
import sys

import yaml

WEIR, ROOT, TMP, GEN = sys.argv[1:5]
WORKERS = [1, 2, 3]
# projects whose models run partitioned over one replica per worker (the summary says so)
PARTITIONED = {'par_keyed', 'nexmark_keyed'}
# the Nexmark queries that partition by a key (bench/nexmark, --select each alone)
NEXMARK_KEYED = ['q3', 'q8', 'q9', 'q11', 'q12_eventtime', 'q16', 'q17', 'q18', 'q19', 'q20']
BATCHES = [int(b) for b in os.environ.get('WORKERS_BATCHES', '1,7,4096').split(',')]


def fail(msg):
    print('FAIL: ' + msg, file=sys.stderr)
    sys.exit(1)


SINK = {'connector': 'sqlite', 'path': 'target/workers.db', 'flush_interval': '0s'}


def with_sqlite_sinks(p):
    """Every model of project p gets a SQLite sink (other sinks are replaced), flushed at
    every step: a coalesced sink's flushes would otherwise follow the clock (flush_interval),
    and with them its row order and the summary's per-sink counts."""
    models = sorted(os.path.splitext(os.path.basename(f))[0]
                    for f in glob.glob(os.path.join(p, 'models', '**', '*.sql'), recursive=True))
    files = sorted(glob.glob(os.path.join(p, 'models', '**', '*.yml'), recursive=True))
    seen = set()
    for f in files:
        doc = yaml.safe_load(open(f)) or {}
        ms = doc.get('models')
        if not isinstance(ms, dict):
            continue
        for name, cfg in ms.items():
            cfg = cfg if isinstance(cfg, dict) else {}
            cfg['sink'] = dict(SINK)
            ms[name] = cfg
            seen.add(name)
        yaml.safe_dump(doc, open(f, 'w'), sort_keys=False)
    rest = [m for m in models if m not in seen]
    if rest:
        doc = {'models': {m: {'sink': dict(SINK)} for m in rest}}
        yaml.safe_dump(doc, open(os.path.join(p, 'models', 'zz_workers_sinks.yml'), 'w'), sort_keys=False)


def outputs(p):
    """(tables in row order, tables sorted, dead letters, dead letters sorted)"""
    raw, final = {}, {}
    db = os.path.join(p, 'target', 'workers.db')
    if os.path.exists(db):
        c = sqlite3.connect(db)
        names = [r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE '\\_weir\\_%' ESCAPE '\\' ORDER BY name")]
        for t in names:
            rows = [tuple(repr(v) for v in r) for r in c.execute('SELECT * FROM "%s" ORDER BY rowid' % t)]
            raw[t] = rows
            final[t] = sorted(rows)
        c.close()
    dl, dls = {}, {}
    for f in sorted(glob.glob(os.path.join(p, 'target', 'dead_letter', '*'))):
        b = open(f, 'rb').read()
        dl[os.path.basename(f)] = b
        dls[os.path.basename(f)] = sorted(b.splitlines())
    return raw, final, dl, dls


def run(src, name, workers, batch):
    p = os.path.join(TMP, '%s-w%d-b%d' % (name, workers, batch))
    shutil.copytree(src, p, ignore=shutil.ignore_patterns('target', '.weir'))
    with_sqlite_sinks(p)
    r = subprocess.run([WEIR, '--project-dir', p, 'run', '--no-progress', '--format', 'json',
                        '--workers', str(workers), '--batch-size', str(batch)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        fail('%s: weir run --workers %d --batch-size %d: exit %d\n%s' % (name, workers, batch, r.returncode, r.stderr))
    summary = None
    dec, i, text = json.JSONDecoder(), 0, r.stdout
    while i < len(text):
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            break
        v, i = dec.raw_decode(text, i)
        if isinstance(v, dict) and 'events_in' in v:
            summary = v
    if summary is None or summary.get('workers') != workers:
        fail('%s: the summary does not say %d workers: %s' % (name, workers, text[:400]))
    counts = {k: summary[k] for k in ('events_in', 'changes_out', 'dead_letters', 'skipped')}
    # paths name the project's own directory
    for k in ('sources', 'models', 'state'):
        counts[k] = json.loads(json.dumps(summary[k]).replace(p, '<project>'))
    replicas = summary.get('replicas', 1)
    if name in PARTITIONED and workers > 1 and replicas != workers:
        fail('%s: with %d workers the models should run on %d replicas: %s'
             % (name, workers, workers, summary.get('one_thread_reason')))
    if replicas > 1:
        # replicas keep a key's state in one of several tables: the entries (and what
        # expired) add up to one pipeline's, the bytes of the tables do not
        for st in counts['state']:
            st.pop('bytes', None)
            st.pop('bytes_per_entry', None)
    out = outputs(p)
    shutil.rmtree(p)
    return counts, out


def nexmark_project():
    """bench/nexmark over 6,000 generated events with 1 line in 97 of the bids malformed
    and 1 in 89 a minute late (dead letters of the source and of the windows)."""
    p = os.path.join(TMP, 'nexmark-src')
    shutil.copytree(os.path.join(ROOT, 'bench', 'nexmark'), p, ignore=shutil.ignore_patterns('target', '.weir'))
    data = os.path.join(p, 'data')
    subprocess.run([GEN, '--events', '6000', '--seed', '7', '--rate', '200', '--base-time', '2015-07-15 23:59:00', '--out-dir', data],
                   check=True, capture_output=True)
    bids = open(os.path.join(data, 'bid.jsonl')).read().splitlines()
    out = []
    for i, line in enumerate(bids):
        if i % 97 == 50:
            out.append(line[: len(line) // 2])
        elif i % 89 == 40:
            b = json.loads(line)
            t = datetime.datetime.fromisoformat(b['date_time']) - datetime.timedelta(minutes=1)
            b['date_time'] = t.isoformat(sep=' ', timespec='milliseconds')
            out.append(json.dumps(b))
        else:
            out.append(line)
    open(os.path.join(data, 'bid.jsonl'), 'w').write('\n'.join(out) + '\n')
    return p


def reads_clickhouse(p):
    """A project with a ClickHouse table source runs against a server
    (tests/scripts/clickhouse_lookup_native.sh runs it across batch sizes there)."""
    for f in glob.glob(os.path.join(p, 'sources', '*.yml')):
        with open(f) as fh:
            if 'connector: clickhouse' in fh.read():
                return True
    return False


def main():
    projects = [('commerce', os.path.join(ROOT, 'examples', 'commerce'))]
    for d in sorted(glob.glob(os.path.join(ROOT, 'tests', 'projects', '*'))):
        if (os.path.isdir(os.path.join(d, 'data')) and not os.path.basename(d).startswith('lifecycle')
                and not reads_clickhouse(d)):
            projects.append((os.path.basename(d), d))
    nexmark = nexmark_project()
    projects.append(('nexmark', nexmark))
    # the keyed queries together: one routing column for all of them does not exist,
    # so each runs alone in a project of its own
    for q in NEXMARK_KEYED:
        p = os.path.join(TMP, 'nexmark-%s' % q)
        shutil.copytree(nexmark, p)
        for f in glob.glob(os.path.join(p, 'models', '*.sql')):
            if os.path.basename(f) != q + '.sql':
                os.remove(f)
        for f in glob.glob(os.path.join(p, 'models', '*.yml')):
            doc = yaml.safe_load(open(f)) or {}
            if isinstance(doc.get('models'), dict):
                doc['models'] = {k: v for k, v in doc['models'].items() if k == q}
            yaml.safe_dump(doc, open(f, 'w'), sort_keys=False)
        projects.append(('nexmark_keyed', p))
    only = os.environ.get('WORKERS_ONLY')
    if only:
        projects = [(n, s) for n, s in projects if n in only.split(',')]
    for name, src in projects:
        results = {}
        for b in BATCHES:
            for w in WORKERS:
                results[(w, b)] = run(src, name, w, b)
        for b in BATCHES:
            c1, (raw1, _, dl1, _) = results[(1, b)]
            for w in WORKERS[1:]:
                cw, (raww, _, dlw, _) = results[(w, b)]
                if cw['state'] and 'bytes' not in cw['state'][0]:
                    for st in c1['state']:
                        st.pop('bytes', None)
                        st.pop('bytes_per_entry', None)
                if cw != c1:
                    fail('%s --batch-size %d: the summary with %d workers differs from 1 worker:\n%s\n%s'
                         % (name, b, w, json.dumps(cw)[:600], json.dumps(c1)[:600]))
                if raww != raw1:
                    bad = [t for t in raw1 if raww.get(t) != raw1[t]] or sorted(set(raww) ^ set(raw1))
                    fail('%s --batch-size %d: sink tables differ with %d workers: %s' % (name, b, w, bad))
                if dlw != dl1:
                    fail('%s --batch-size %d: dead letters differ with %d workers: %s'
                         % (name, b, w, sorted(set(dl1) ^ set(dlw)) or [k for k in dl1 if dl1[k] != dlw.get(k)]))
        ref = results[(1, BATCHES[-1])][1]
        for b in BATCHES:
            for w in WORKERS:
                _, final, _, dls = results[(w, b)][1]
                if final != ref[1]:
                    fail('%s: the final tables with --batch-size %d --workers %d differ from --batch-size %d'
                         % (name, b, w, BATCHES[-1]))
                if dls != ref[3]:
                    fail('%s: the dead letters with --batch-size %d --workers %d differ from --batch-size %d'
                         % (name, b, w, BATCHES[-1]))
        ntables = len(ref[0])
        nrows = sum(len(v) for v in ref[0].values())
        ndl = sum(len(v) for v in ref[3].values())
        if name == 'nexmark_keyed':
            name = os.path.basename(src)
        if name == 'nexmark' and (ntables < 20 or ndl == 0):
            fail('nexmark: expected 20+ sink tables and dead letters, got %d tables, %d dead letters' % (ntables, ndl))
        print('  %-44s %3d tables %7d rows %5d dead letters: equal' % (name, ntables, nrows, ndl))


main()
