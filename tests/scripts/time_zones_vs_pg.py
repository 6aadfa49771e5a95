#!/usr/bin/env python3
"""AT TIME ZONE for every zone of /usr/share/zoneinfo (not posix/ and right/): a weir
project converts rows (id, ts, zone) both ways with the zone computed per row,
`ts AT TIME ZONE zone` (wall-clock time to instant: gaps and overlaps) and
`ts::timestamptz AT TIME ZONE zone` (instant to wall-clock time); PostgreSQL computes
the same over the same rows. Twelve timestamps per zone from a fixed seed, years 1850
to 2400 (beyond the files' transitions: their POSIX rules), months of clock changes
favoured. Used by tests/scripts/time_zones_vs_pg.sh. Prints the differences and
"N passed, M failed" with one test per zone; exit status 1 on a difference. The
abbreviations of PostgreSQL's default set (src/base/tz_abbrevs.inc) are compared the same
way, 40 timestamps each: those it defines by a zone ('MSK' by Europe/Moscow) mean what
that zone's data says they meant at the time. Standard library only."""
import argparse
import json
import os
import random
import subprocess
import sys

ZONEINFO = '/usr/share/zoneinfo'


def zones():
    out = []
    for root, _dirs, files in os.walk(ZONEINFO):
        rel = os.path.relpath(root, ZONEINFO)
        if rel.split('/')[0] in ('posix', 'right'):
            continue
        for f in files:
            with open(os.path.join(root, f), 'rb') as fh:
                if fh.read(4) != b'TZif':
                    continue
            out.append(os.path.normpath(os.path.join(rel, f)))
    return sorted(out)


def abbreviations():
    inc = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'src', 'base', 'tz_abbrevs.inc')
    with open(inc) as fh:
        return sorted(line.split('"')[1].upper() for line in fh if line.startswith('{"'))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--weir', required=True)
    ap.add_argument('--tmp', required=True)
    args = ap.parse_args()
    rnd = random.Random(20260329)
    rows = []
    for z, n in [(z, 12) for z in zones()] + [(a, 40) for a in abbreviations()]:
        for _ in range(n):
            y = rnd.choice([rnd.randint(1850, 2100), rnd.randint(1970, 2040), rnd.randint(2038, 2400)])
            mo = rnd.choice([3, 4, 10, 11, rnd.randint(1, 12)])
            ts = '%04d-%02d-%02d %02d:%02d:%02d' % (y, mo, rnd.randint(1, 28), rnd.randint(0, 23),
                                                    rnd.choice([0, 15, 30, 45, 59]), rnd.randint(0, 59))
            rows.append({'id': len(rows) + 1, 'ts': ts, 'zone': z})
    if len(rows) < 1000:
        sys.exit('only %d rows for the zones under %s' % (len(rows), ZONEINFO))
    proj = os.path.join(args.tmp, 'tz')
    for d in ('sources', 'models', 'data'):
        os.makedirs(os.path.join(proj, d), exist_ok=True)
    with open(os.path.join(proj, 'weir.yml'), 'w') as fh:
        fh.write('name: tz\n')
    with open(os.path.join(proj, 'sources', 's.yml'), 'w') as fh:
        fh.write('sources:\n  z.rows:\n    connector: file\n    path: data/rows.jsonl\n    format: json\n'
                 '    columns: {id: bigint, ts: timestamp, zone: text}\n')
    with open(os.path.join(proj, 'data', 'rows.jsonl'), 'w') as fh:
        for r in rows:
            fh.write(json.dumps(r) + '\n')
    with open(os.path.join(proj, 'models', 'm.sql'), 'w') as fh:
        fh.write("SELECT id, (ts AT TIME ZONE zone)::text AS a, (ts::timestamptz AT TIME ZONE zone)::text AS b "
                 "FROM source('z.rows')\n")
    with open(os.path.join(proj, 'models', 'schema.yml'), 'w') as fh:
        fh.write('models:\n  m: {materialized: append, sink: {connector: file, path: target/m.jsonl, format: json}}\n')
    r = subprocess.run([args.weir, '--project-dir', proj, 'run', '--no-progress'], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit('weir run failed (%d):\n%s%s' % (r.returncode, r.stdout, r.stderr))
    weir = {}
    with open(os.path.join(proj, 'target', 'm.jsonl')) as fh:
        for line in fh:
            w = json.loads(line)
            weir[w['id']] = w
    sql = ("SET TimeZone = 'UTC';\nCREATE TEMP TABLE r (id bigint, ts timestamp, zone text);\nCOPY r FROM STDIN;\n" +
           ''.join('%d\t%s\t%s\n' % (r['id'], r['ts'], r['zone']) for r in rows) +
           "\\.\nSELECT id || '|' || (ts AT TIME ZONE zone)::text || '|' || (ts::timestamptz AT TIME ZONE zone)::text "
           "FROM r ORDER BY id;\n")
    out = subprocess.run(['psql', '-X', '-q', '-At', '-v', 'ON_ERROR_STOP=1'], input=sql, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit('psql failed: %s' % out.stderr)
    compared = failed = 0
    zones_seen, zones_bad = set(), set()
    for line in out.stdout.splitlines():
        rid, a, b = line.split('|')
        w = weir.get(int(rid))
        row = rows[int(rid) - 1]
        zones_seen.add(row['zone'])
        for col, pg in (('a', a), ('b', b)):
            compared += 1
            if w is None or w[col] != pg:
                failed += 1
                zones_bad.add(row['zone'])
                if failed <= 20:
                    print('%s AT TIME ZONE %s (%s): weir %r, PostgreSQL %r' % (
                        row['ts'], row['zone'], 'timestamp' if col == 'a' else 'timestamptz',
                        w and w[col], pg))
    # one test per zone (each of its conversions equal), the conversions compared beside
    print('%d conversions compared, %d differ' % (compared, failed))
    print('%d passed, %d failed' % (len(zones_seen) - len(zones_bad), len(zones_bad)))
    sys.exit(1 if zones_bad or not zones_seen else 0)


if __name__ == '__main__':
    main()
