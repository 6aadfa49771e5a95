"""The SQL weir generates for current ClickHouse servers, run by chdb (an embedded
current ClickHouse engine): `weir compile` writes target/clickhouse/current/
deployment.sql for tests/clickhouse/shop; every statement is executed (the Kafka
engine tables become Null tables of the same columns, since no broker is attached),
orders are inserted into them, and the stable views must show exactly the rows weir's
own runtime computes for those orders. Then the statements only current servers get
(the offsets cut's replay filter, the publish RENAME in an Atomic database) run too. The
landing view reads the Kafka engine's virtual columns: only its syntax is checked. Prints one line per check and "N passed, N failed"."""
import atexit
import re
import shutil
import sys
import tempfile

from chdb import session

path = sys.argv[1]
passed = failed = 0


def check(name, got, want):
    global passed, failed
    if got == want:
        passed += 1
        print("ok:", name)
    else:
        failed += 1
        print("FAIL: %s\n    got:  %r\n    want: %r" % (name, got, want))


workdir = tempfile.mkdtemp(prefix="weir-chdb.")
atexit.register(shutil.rmtree, workdir, True)
s = session.Session(workdir)


def q(sql):
    return s.query(sql, "TabSeparated").bytes().decode().rstrip("\n")


print("chdb", q("SELECT version()"))
text = open(path).read()
statements = [re.sub(r"^(\s*--[^\n]*\n)+", "", st).strip() for st in re.split(r";\n", text)]
statements = [st for st in statements if st and not st.startswith("--")]
q("CREATE DATABASE IF NOT EXISTS `weir`")
# the table the LEFT JOIN lookup reads (an adopted source: weir creates nothing for it)
q("CREATE TABLE `weir`.`customers` (customer_id Int64, name String) ENGINE = MergeTree() ORDER BY customer_id")
q("INSERT INTO `weir`.`customers` VALUES (1, 'Ann'), (2, 'Bob'), (2, 'Bea')")
kafka_tables = []
ran = 0
for st in statements:
    if not st:
        continue
    m = re.match(r"CREATE TABLE IF NOT EXISTS (`weir`\.`[^`]*`) \((.*)\) ENGINE = Kafka SETTINGS", st, re.S)
    if m:
        kafka_tables.append(m.group(1))
        # the Kafka engine's virtual columns become ordinary ones the inserts fill
        st = "CREATE TABLE IF NOT EXISTS %s (%s, _partition UInt64, _offset UInt64, _timestamp Nullable(DateTime)) " \
             "ENGINE = Null" % (m.group(1), m.group(2))
    if re.search(r"FROM `weir`\.`kafka__", st):
        # the landing view reads the Kafka engine's virtual columns, which a Null
        # table lacks: its syntax only
        q("EXPLAIN AST " + st)
    else:
        q(st)
    ran += 1
check("every statement of the deployment runs on ClickHouse " + q("SELECT version()"), ran > 0, True)


def order(n):
    st = "cancelled" if n % 7 == 0 else "new"
    return "(%d, %d, %d.25, '%s', toDateTime64('2024-01-01 00:00:00', 6, 'UTC') + toIntervalSecond(%d), %d, %d)" % (
        n, n % 5, n, st, n, n % 2, 100 + n)


rows = ", ".join(order(n) for n in range(1, 31))
for t in kafka_tables:
    q("INSERT INTO %s (order_id, customer_id, amount, status, created_at, _partition, _offset) VALUES %s" % (t, rows))

# the same figures as the native runtime and 18.16 give for orders 1..30
# (current servers print decimals without trailing zeros: output_format_decimal_trailing_zeros)
check("filter view: orders that are not cancelled", q("SELECT count(), sum(amount) FROM `weir`.`orders_clean`"),
      "26\t401.5")
check("aggregate view: weir's upsert rows",
      q("SELECT customer_id, orders, total, biggest FROM `weir`.`customer_totals` WHERE customer_id = 1"),
      "1\t5\t61.25\t26.25")
check("aggregate view: one row per key", q("SELECT count() FROM `weir`.`customer_totals`"), "5")
check("window view: the windows the watermark closed",
      q("SELECT min(window_start), max(window_end), sum(orders) FROM `weir`.`per_window`"),
      "2024-01-01 00:00:00.000000\t2024-01-01 00:00:30.000000\t29")
check("replay lineage: each order's partition and offset, a landing time",
      q("SELECT count(), countIf(part = order_id % 2 AND pos = 100 + order_id AND landed = 1) "
        "FROM `weir`.`order_positions`"), "30\t30")

check("left lookup: an order without a customer keeps its row with NULL (not '')",
      q("SELECT count(), countIf(name IS NULL), countIf(name = ''), countIf(name = 'Bea') FROM `weir`.`order_names`"),
      "36\t18\t0\t6")

# the offsets cut (servers with Kafka virtual columns): the raw rows below the handed-over offsets
raw = [t for t in re.findall(r"CREATE TABLE IF NOT EXISTS (`weir`\.`raw__[^`]*`)", text)][0]
q("INSERT INTO %s SELECT order_id, customer_id, amount, status, created_at, 0, toInt64(order_id - 1), now64(3), "
  "now64(3) FROM (SELECT order_id, customer_id, amount, status, created_at FROM `weir`.`orders_clean`)" % raw)
check("replay filter of the offsets cut",
      q("SELECT count() FROM (SELECT * FROM %s WHERE multiIf(`_replay_partition` = 0, `_replay_offset` < 10, 0))" % raw),
      "9")
# publish: the stable views of a deployment switched in one RENAME (an Atomic database here)
q("CREATE VIEW `weir`.`orders_clean__next_1` AS SELECT 1 AS one")
q("RENAME TABLE `weir`.`orders_clean` TO `weir`.`orders_clean__old_1`, `weir`.`orders_clean__next_1` TO "
  "`weir`.`orders_clean`")
check("publish's RENAME switches a view", q("SELECT one FROM `weir`.`orders_clean`"), "1")
check("the database engine", q("SELECT engine FROM system.databases WHERE name = 'weir'"), "Atomic")

# the history replay (replay.sql): every model's SELECT over raw landing rows, as weir
# apply runs it, the lineage columns read from the raw table's _replay_* columns
replay_path = sys.argv[2]
q("TRUNCATE TABLE %s" % raw)
q("INSERT INTO %s SELECT number + 1, (number + 1) %% 5, toDecimal64(number + 1, 2) + toDecimal64(0.25, 2), "
  "if((number + 1) %% 7 = 0, 'cancelled', 'new'), toDateTime64('2024-01-01 00:00:00', 6, 'UTC') + "
  "toIntervalSecond(number + 1), toInt32((number + 1) %% 2), toInt64(100 + number + 1), "
  "toDateTime64('2024-02-01 00:00:00', 3, 'UTC') + toIntervalSecond(number + 1), now64(3) FROM numbers(30)" % raw)
replays = [re.sub(r"^(\s*--[^\n]*\n)+", "", st).strip() for st in re.split(r";\n", open(replay_path).read())]
nrep = 0
for st in replays:
    if st and not st.startswith("--"):
        q(st)
        nrep += 1
check("every replay statement runs", nrep, 5)


def phys(model):
    return re.findall(r"CREATE TABLE IF NOT EXISTS (`weir`\.`%s__[^`]*`)" % model, text)[0]


check("replay lineage: partition, offset and Kafka timestamp from the raw table's _replay_* columns",
      q("SELECT count(), countIf(`order_positions__part` = `order_positions__order_id` %% 2 AND "
        "`order_positions__pos` = 100 + `order_positions__order_id` AND `order_positions__ts` = "
        "toDateTime64('2024-02-01 00:00:00', 3, 'UTC') + toIntervalSecond(`order_positions__order_id`) AND "
        "`order_positions__landed` = 1) FROM %s WHERE `_weir_replay` = 1" % phys("order_positions")), "30\t30")
check("replay lineage: the view shows the replayed rows beside the live ones",
      q("SELECT countIf(pos = 100 + order_id), countIf(ts IS NOT NULL) FROM `weir`.`order_positions`"), "60\t30")
check("replay of the filter model: the orders that are not cancelled",
      q("SELECT count(), sum(`orders_clean__amount`) FROM %s WHERE `_weir_replay` = 1" % phys("orders_clean")),
      "26\t401.5")
check("replay of the left lookup: NULLs for orders without a customer",
      q("SELECT count(), countIf(`order_names__name` IS NULL) FROM %s WHERE `_weir_replay` = 1" % phys("order_names")),
      "36\t18")
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
