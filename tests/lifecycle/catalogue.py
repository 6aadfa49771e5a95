#!/usr/bin/env python3
"""The catalogue of version pairs: tests/lifecycle/shop is v1; each case edits a copy
into v2 and checks `weir plan --state <v1's target/>` -- every model's verdict, the
verdict and action of the states that matter, and the words of the reasons. Prints one
line per case and ends with "N passed, N failed"."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WEIR = os.environ.get('WEIR', os.path.join(ROOT, 'build', 'weir'))
BASE = os.path.join(ROOT, 'tests', 'lifecycle', 'shop')
MODELS = ['active_customers', 'big_orders', 'country_totals', 'customer_totals', 'orders_clean',
          'orders_enriched', 'orders_per_minute']


def copy(src, dst):
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns('target', '.weir', 'out'))
    return dst


def edit(d, rel, old, new, count=1):
    p = os.path.join(d, rel)
    s = open(p).read()
    if old not in s:
        raise AssertionError('edit: %r not in %s' % (old, rel))
    open(p, 'w').write(s.replace(old, new, count))


def weir(d, *args):
    env = dict(os.environ, NO_COLOR='1')
    return subprocess.run([WEIR, '--project-dir', d] + list(args), capture_output=True, text=True, env=env,
                          timeout=120)


def plan(d, state, *extra):
    p = weir(d, *extra, 'plan', '--state', state, '--format', 'json')
    if p.returncode not in (0, 1):
        raise AssertionError('weir plan exited %d:\n%s%s' % (p.returncode, p.stdout, p.stderr))
    t = weir(d, *extra, 'plan', '--state', state)
    return json.loads(p.stdout), t.stdout, p.returncode


def verdicts(doc, **want):
    got = {m['name']: m['verdict'] for m in doc['models']}
    exp = {m: 'unchanged' for m in MODELS}
    exp.update(want)
    assert got == exp, 'verdicts:\n  got  %s\n  want %s' % (sorted(got.items()), sorted(exp.items()))


def model(doc, name):
    return [m for m in doc['models'] if m['name'] == name][0]


def state(doc, sid):
    for m in doc['models']:
        for s in m['state']:
            if s['id'] == sid:
                return s
    for s in doc['source_state']:
        if s['id'] == sid:
            return s
    raise AssertionError('no state %s in the plan' % sid)


def has(text, *parts):
    for p in parts:
        assert p in text, '%r not in:\n%s' % (p, text)


CASES = []


def case(fn):
    CASES.append(fn)
    return fn


@case
def unchanged(v2, state_dir):
    doc, text, rc = plan(v2, state_dir)
    verdicts(doc)
    assert rc == 0 and not doc['blocked'] and doc['replay'] == [], doc
    has(text, 'the running state is reused as it is')


@case
def reformatted_sql_and_renamed_cte(v2, state_dir):
    open(os.path.join(v2, 'models', 'customer_totals.sql'), 'w').write(
        "-- totals per customer\nselect\n    customer_id,\n    count(*)    as orders,\n    sum(amount) as total\n"
        "from   ref('orders_clean')\ngroup  by customer_id\n")
    edit(v2, 'models/big_orders.sql', 'WITH o AS', 'WITH large AS')
    edit(v2, 'models/big_orders.sql', 'FROM o WHERE', 'FROM large WHERE')
    doc, _, rc = plan(v2, state_dir)
    verdicts(doc)
    assert rc == 0


@case
def projection_above_aggregate(v2, state_dir):
    edit(v2, 'models/customer_totals.sql', 'COUNT(*) AS orders', 'COUNT(*) * 10 AS orders')
    doc, text, _ = plan(v2, state_dir)
    verdicts(doc, customer_totals='safe')
    m = model(doc, 'customer_totals')
    assert m['output'] == 'from_state', m
    assert state(doc, 'customer_totals/aggregate0')['verdict'] == 'unchanged'
    has(text, 'receives the rows that change, derived from the state')


@case
def aggregate_column_removed(v2, state_dir):
    edit(v2, 'models/customer_totals.sql', 'COUNT(*) AS orders, SUM(amount) AS total', 'COUNT(*) AS orders')
    doc, text, _ = plan(v2, state_dir)
    verdicts(doc, customer_totals='safe')
    s = state(doc, 'customer_totals/aggregate0')
    assert s['verdict'] == 'safe' and s['action'] == 'map', s
    has(s['reason'], 'accumulators no longer read are dropped', '- sum(amount).sum')


@case
def new_aggregate_column(v2, state_dir):
    edit(v2, 'models/customer_totals.sql', 'SUM(amount) AS total', 'SUM(amount) AS total, MAX(amount) AS largest')
    doc, text, _ = plan(v2, state_dir)
    verdicts(doc, customer_totals='backfill')
    s = state(doc, 'customer_totals/aggregate0')
    assert s['action'] == 'replay', s
    has(s['reason'], '+ max(amount).extreme numeric(12,2)')
    assert [r['source'] for r in doc['replay']] == ['shop.orders'], doc['replay']


def filter_change_expectations(doc, text):
    verdicts(doc, customer_totals='backfill', country_totals='backfill', orders_per_minute='backfill',
             big_orders='backfill', orders_clean='safe', orders_enriched='backfill')
    # two models upstream of country_totals' aggregate: the reason walks into them
    has(state(doc, 'country_totals/aggregate0')['reason'], 'reads model orders_enriched, which changes',
        'reads model orders_clean, which changes')
    # a stateless model with a sink: its rows are recomputed from history
    has(' '.join(model(doc, 'big_orders')['reasons']), 'its output is not kept in state')
    assert model(doc, 'big_orders')['output'] == 'replay'
    assert state(doc, 'active_customers/aggregate0')['verdict'] == 'unchanged'


@case
def filter_changed_upstream(v2, state_dir):
    edit(v2, 'models/orders_clean.sql', "status <> 'cancelled'", "status <> 'void'")
    doc, text, _ = plan(v2, state_dir)
    filter_change_expectations(doc, text)
    has(state(doc, 'customer_totals/aggregate0')['reason'], "- Filter ((status <> 'cancelled'::text)",
        "+ Filter ((status <> 'void'::text)")


@case
def var_in_filter_changed(v2, state_dir):
    doc, text, _ = plan(v2, state_dir, '--vars', '{"min_amount": 20}')
    filter_change_expectations(doc, text)
    has(state(doc, 'customer_totals/aggregate0')['reason'], "(amount >= '10'::numeric)", "(amount >= '20'::numeric)")


@case
def unread_column_added_upstream(v2, state_dir):
    edit(v2, 'models/orders_clean.sql', 'SELECT order_id,', 'SELECT upper(status) AS status_upper, order_id,')
    doc, text, _ = plan(v2, state_dir)
    # nobody downstream reads the new column: only the view itself changes
    verdicts(doc, orders_clean='safe')


@case
def grouping_key_changed(v2, state_dir):
    edit(v2, 'models/customer_totals.sql', 'SELECT customer_id,', 'SELECT customer_id, status,')
    edit(v2, 'models/customer_totals.sql', 'GROUP BY customer_id', 'GROUP BY customer_id, status')
    edit(v2, 'models/schema.yml', 'key: [customer_id]\n    sink: {connector: sqlite', 'key: [customer_id, status]\n    sink: {connector: sqlite')
    doc, text, rc = plan(v2, state_dir, )
    verdicts(doc, customer_totals='rebuild')
    s = state(doc, 'customer_totals/aggregate0')
    assert s['reason'] == 'grouping key changed:\n  - customer_id\n  + customer_id, status', s['reason']
    has(' '.join(model(doc, 'customer_totals')['reasons']), 'key [customer_id] -> [customer_id, status]')
    assert rc == 0, 'without --fail-on a plan exits 0'
    p = weir(v2, 'plan', '--state', state_dir, '--fail-on', 'rebuild')
    assert p.returncode == 1, p.returncode
    p = weir(v2, 'plan', '--state', state_dir, '--fail-on', 'nonsense')
    assert p.returncode == 2 and 'expected safe, new, backfill or rebuild' in p.stderr, p.stderr


@case
def column_type_changed(v2, state_dir):
    edit(v2, 'sources/shop.yml', 'amount: numeric(12,2)', 'amount: "numeric(14,2)"')
    doc, text, _ = plan(v2, state_dir)
    for m in ('customer_totals', 'country_totals', 'orders_per_minute'):
        assert model(doc, m)['verdict'] == 'rebuild', (m, model(doc, m))
    has(state(doc, 'customer_totals/aggregate0')['reason'], 'sum(amount).sum numeric(14,2)')
    assert model(doc, 'active_customers')['verdict'] == 'unchanged'


@case
def column_encoding_changed(v2, state_dir):
    edit(v2, 'sources/shop.yml', 'created_at: timestamp', 'created_at: {type: timestamp, encoding: epoch_ms}')
    doc, text, _ = plan(v2, state_dir)
    # the column's values change: every state fed by it is rebuilt from history
    verdicts(doc, customer_totals='backfill', country_totals='backfill', orders_per_minute='backfill',
             active_customers='backfill', big_orders='backfill', orders_enriched='backfill', orders_clean='safe')
    assert 'shop.orders' in [r['source'] for r in doc['replay']], doc['replay']


@case
def window_size_changed(v2, state_dir):
    edit(v2, 'models/orders_per_minute.sql', "INTERVAL '1' MINUTE", "INTERVAL '5' MINUTE")
    doc, text, _ = plan(v2, state_dir)
    verdicts(doc, orders_per_minute='backfill')
    has(state(doc, 'orders_per_minute/aggregate0')['reason'], 'Window changed', 'TUMBLE(created_at, 1m)', 'TUMBLE(created_at, 5m)')
    assert model(doc, 'orders_per_minute')['output'] == 'replay'


@case
def join_key_changed(v2, state_dir):
    edit(v2, 'models/orders_enriched.sql', 'ON o.customer_id = c.customer_id', 'ON o.order_id = c.customer_id')
    doc, text, _ = plan(v2, state_dir)
    verdicts(doc, orders_enriched='rebuild', country_totals='backfill')
    has(state(doc, 'orders_enriched/join0/left')['reason'], 'join key changed:', '- customer_id', '+ order_id')


@case
def join_kind_changed(v2, state_dir):
    edit(v2, 'models/orders_enriched.sql', '\nJOIN ', '\nLEFT JOIN ')
    doc, text, _ = plan(v2, state_dir)
    assert model(doc, 'orders_enriched')['verdict'] in ('backfill', 'rebuild'), model(doc, 'orders_enriched')
    assert model(doc, 'country_totals')['verdict'] in ('backfill', 'rebuild')
    has(text, 'Join changed', 'inner', 'left')


@case
def ttl_changed(v2, state_dir):
    edit(v2, 'models/schema.yml', 'state_ttl: 7d', 'state_ttl: 14d')
    doc, text, _ = plan(v2, state_dir)
    verdicts(doc, active_customers='backfill')
    has(state(doc, 'active_customers/aggregate0')['reason'], 'state_ttl 7d -> 14d')
    has(' '.join(model(doc, 'active_customers')['reasons']), 'state_ttl 7d -> 14d')


@case
def ttl_shortened(v2, state_dir):
    # every entry keeps its last update time: the state is what the shorter TTL holds
    # once the watermark moves, so it is kept
    edit(v2, 'models/schema.yml', 'state_ttl: 7d', 'state_ttl: 1d')
    doc, text, _ = plan(v2, state_dir)
    verdicts(doc, active_customers='safe')
    s = state(doc, 'active_customers/aggregate0')
    assert s['verdict'] == 'safe' and s['action'] == 'keep', s
    has(s['reason'], 'state_ttl 7d -> 1d', 'entries idle longer than 1d expire at the next watermark')
    assert doc['replay'] == [], doc['replay']


@case
def ttl_added_or_removed(v2, state_dir):
    edit(v2, 'models/schema.yml', '    state_ttl: 7d\n', '')
    doc, text, _ = plan(v2, state_dir)
    verdicts(doc, active_customers='backfill')
    has(state(doc, 'active_customers/aggregate0')['reason'], 'state_ttl 7d -> none')
    edit(v2, 'models/schema.yml', '  customer_totals:\n    materialized: upsert\n',
         '  customer_totals:\n    materialized: upsert\n    state_ttl: 1d\n')
    doc, text, _ = plan(v2, state_dir)
    verdicts(doc, active_customers='backfill', customer_totals='backfill')
    has(state(doc, 'customer_totals/aggregate0')['reason'], 'state_ttl none -> 1d')


@case
def watermark_delay_changed(v2, state_dir):
    edit(v2, 'sources/shop.yml', 'watermark_delay: 5s', 'watermark_delay: 30s')
    doc, text, _ = plan(v2, state_dir)
    # only the operators that wait for the watermark are affected: the window and the
    # model with a state_ttl (its keys expire by the watermark)
    verdicts(doc, orders_per_minute='backfill', active_customers='backfill')
    has(state(doc, 'orders_per_minute/aggregate0')['reason'], 'watermark_delay 5000ms -> 30000ms')


@case
def watermark_delay_changed_on_ttl_model(v2, state_dir):
    edit(v2, 'sources/shop.yml', 'watermark_delay: 5s', 'watermark_delay: 1m')
    doc, text, _ = plan(v2, state_dir)
    m = model(doc, 'active_customers')
    assert m['verdict'] == 'backfill', m
    s = state(doc, 'active_customers/aggregate0')
    assert s['verdict'] == 'backfill' and s['action'] == 'replay', s
    has(s['reason'], 'source shop.orders changed:', 'watermark_delay 5000ms -> 60000ms',
        'its keys would have expired at other times')
    assert 'shop.orders' in [r['source'] for r in doc['replay']], doc['replay']
    # the same model without its TTL does not depend on the delay
    edit(v2, 'models/schema.yml', '    state_ttl: 7d\n', '')
    doc, text, _ = plan(v2, state_dir)
    has(state(doc, 'active_customers/aggregate0')['reason'], 'state_ttl 7d -> none')
    assert 'watermark_delay' not in state(doc, 'active_customers/aggregate0')['reason']


@case
def temporal_encoding_changed(v2, state_dir):
    # the same plan over other values: the reason names the source's column change
    edit(v2, 'sources/shop.yml', 'created_at: timestamp', 'created_at: {type: timestamp, encoding: epoch_ms}')
    doc, text, _ = plan(v2, state_dir)
    s = state(doc, 'orders_per_minute/aggregate0')
    assert s['verdict'] == 'backfill' and s['action'] == 'replay', s
    has(s['reason'], 'source shop.orders changed:', '+ ', '(encoding epoch_ms)')
    assert 'what feeds the state changed' not in text, text


@case
def sink_format_changed(v2, state_dir):
    edit(v2, 'models/schema.yml', 'path: out/country_totals.jsonl, format: changelog-json',
         'path: out/country_totals.jsonl, format: debezium-json')
    edit(v2, 'models/schema.yml', 'path: out/big_orders.jsonl, format: json', 'path: out/big_orders_v2.jsonl, format: json')
    doc, text, _ = plan(v2, state_dir)
    # a keyed output is re-derived from its state; an append output is not kept: replayed
    verdicts(doc, country_totals='safe', big_orders='backfill')
    has(' '.join(model(doc, 'country_totals')['reasons']), 'sink changed:',
        '- file out/country_totals.jsonl (changelog-json)', '+ file out/country_totals.jsonl (debezium-json)')
    assert model(doc, 'country_totals')['output'] == 'from_state'
    assert model(doc, 'big_orders')['output'] == 'replay'


@case
def new_model(v2, state_dir):
    open(os.path.join(v2, 'models', 'status_counts.sql'), 'w').write(
        "SELECT status, COUNT(*) AS n FROM source('shop.orders') GROUP BY status\n")
    doc, text, _ = plan(v2, state_dir)
    verdicts(doc, status_counts='new')
    has(' '.join(model(doc, 'status_counts')['reasons']), 'new model')
    assert [r['source'] for r in doc['replay']] == ['shop.orders'], doc['replay']


@case
def removed_model(v2, state_dir):
    os.remove(os.path.join(v2, 'models', 'big_orders.sql'))
    edit(v2, 'models/schema.yml', '  big_orders:\n    materialized: append\n    sink: {connector: file, path: out/big_orders.jsonl, format: json}\n', '')
    doc, text, _ = plan(v2, state_dir)
    got = {m['name']: m['verdict'] for m in doc['models']}
    assert got.pop('big_orders') == 'removed' and set(got.values()) == {'unchanged'}, got
    assert model(doc, 'big_orders')['output'] == 'left'
    has(text, 'its sink left as it is')


@case
def source_topic_changed(v2, state_dir):
    edit(v2, 'sources/shop.yml', 'topic: orders', 'topic: orders_v2')
    doc, text, _ = plan(v2, state_dir)
    for m in ('customer_totals', 'country_totals', 'orders_per_minute', 'active_customers', 'orders_enriched'):
        assert model(doc, m)['verdict'] == 'rebuild', (m, model(doc, m))
    has(text, 'reads kafka orders_v2 instead of kafka orders')


@case
def never_deployed(v2, state_dir):
    p = weir(v2, 'plan', '--format', 'json')
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert not doc['deployed'] and {m['verdict'] for m in doc['models']} == {'new'}, doc
    assert 'where nothing runs yet' in doc['against']


@case
def bad_state_files(v2, state_dir):
    p = weir(v2, 'plan', '--state', os.path.join(v2, 'nope.json'))
    assert p.returncode == 2 and 'cannot read' in p.stderr, p.stderr
    bad = os.path.join(v2, 'bad.json')
    open(bad, 'w').write('{"manifest_version": 1,\n  "models": [1, }\n')
    p = weir(v2, 'plan', '--state', bad)
    assert p.returncode == 2 and re.search(r'bad\.json:2:\d+: not valid JSON', p.stderr), p.stderr
    open(bad, 'w').write('{"manifest_version": 7}')
    p = weir(v2, 'plan', '--state', bad)
    assert p.returncode == 2 and 'not a manifest of version 1' in p.stderr, p.stderr


def main():
    tmp = tempfile.mkdtemp(prefix='weir-catalogue.')
    passed = failed = 0
    try:
        v1 = copy(BASE, os.path.join(tmp, 'v1'))
        p = weir(v1, 'compile')
        if p.returncode != 0:
            print('compile of v1 failed:\n' + p.stdout + p.stderr)
            print('0 passed, 1 failed')
            return 1
        state_dir = os.path.join(v1, 'target')
        for fn in CASES:
            v2 = copy(BASE, os.path.join(tmp, fn.__name__))
            try:
                fn(v2, state_dir)
                passed += 1
                print('ok   %s' % fn.__name__)
            except Exception as e:  # report and go on with the other cases
                failed += 1
                print('FAIL %s: %s' % (fn.__name__, e))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
