#!/usr/bin/env bash
# Temporal encodings read by `weir run` from files: a debezium-json file whose records
# carry Kafka Connect's schema (io.debezium.time.MicroTimestamp, Date, MicroTime,
# ZonedTimestamp, Timestamp) gives each temporal column its encoding, epochs before
# 1970 included; a json source declares `encoding: epoch_ms`; values outside the range
# or of the wrong JSON type are dead letters with the reason, and the rest are read.
source "$(dirname "$0")/lib.sh"

P=$TMP/p
mkdir -p "$P/sources" "$P/models" "$P/data"
echo "name: dbz" > "$P/weir.yml"
cat > "$P/sources/s.yml" <<'EOF'
sources:
  cdc.accounts:
    connector: file
    path: data/accounts.jsonl
    format: debezium-json
    primary_key: [id]
    columns:
      id: bigint
      opened_at: timestamp
      birthday: date
      wakes_at: interval
      updated_at: timestamptz
  app.clicks:
    connector: file
    path: data/clicks.jsonl
    format: json
    columns:
      user_id: bigint
      ts: {type: timestamp, encoding: epoch_ms}
    event_time: ts
EOF
cat > "$P/models/accounts.sql" <<'EOF'
SELECT id, opened_at, birthday, wakes_at, updated_at FROM source('cdc.accounts')
EOF
cat > "$P/models/clicks_per_day.sql" <<'EOF'
SELECT window_start, count(*) AS clicks FROM TUMBLE(source('app.clicks'), ts, INTERVAL '1' DAY)
GROUP BY window_start, window_end
EOF
cat > "$P/models/schema.yml" <<'EOF'
models:
  accounts: {materialized: upsert, key: [id], sink: {connector: file, path: out/accounts.jsonl, format: changelog-json}}
  clicks_per_day: {materialized: append, sink: {connector: file, path: out/clicks.jsonl, format: json}}
EOF

# Debezium records as Kafka Connect writes them with schemas enabled
python3 - "$P/data/accounts.jsonl" <<'EOF'
import json, sys
def field(name, typ, logical=None):
    f = {"type": typ, "optional": True, "field": name}
    if logical: f["name"] = logical; f["version"] = 1
    return f
fields = [field("id", "int64"), field("opened_at", "int64", "io.debezium.time.MicroTimestamp"),
          field("birthday", "int32", "io.debezium.time.Date"), field("wakes_at", "int64", "io.debezium.time.MicroTime"),
          field("updated_at", "string", "io.debezium.time.ZonedTimestamp")]
schema = {"type": "struct", "name": "dbserver1.public.accounts.Envelope", "optional": False, "fields": [
    {"type": "struct", "fields": fields, "optional": True, "name": "dbserver1.public.accounts.Value", "field": "before"},
    {"type": "struct", "fields": fields, "optional": True, "name": "dbserver1.public.accounts.Value", "field": "after"},
    {"type": "struct", "fields": [{"type": "string", "optional": False, "field": "connector"}], "optional": False,
     "name": "io.debezium.connector.postgresql.Source", "field": "source"},
    {"type": "string", "optional": False, "field": "op"}, {"type": "int64", "optional": True, "field": "ts_ms"}]}
def rec(op, before, after):
    return json.dumps({"schema": schema, "payload": {"before": before, "after": after, "source": {"connector": "postgresql"},
                                                      "op": op, "ts_ms": 1700000000000}})
a1 = {"id": 1, "opened_at": 1705314600123456, "birthday": 19737, "wakes_at": 25200000000, "updated_at": "2024-01-15T10:30:00.5+02:00"}
a2 = {"id": 2, "opened_at": -1, "birthday": -1, "wakes_at": 0, "updated_at": "1969-12-31T23:59:59Z"}
a1b = dict(a1, opened_at=1705314600999999, wakes_at=86400000000)
bad_range = {"id": 3, "opened_at": 9223372036854775807, "birthday": 0, "wakes_at": 0, "updated_at": None}
bad_type = {"id": 4, "opened_at": "2024-01-15 10:30:00", "birthday": 0, "wakes_at": 0, "updated_at": None}
bad_tod = {"id": 5, "opened_at": 0, "birthday": 0, "wakes_at": 86400000001, "updated_at": None}
with open(sys.argv[1], "w") as f:
    for r in [rec("r", None, a1), rec("c", None, a2), rec("c", None, bad_range), rec("c", None, bad_type),
              rec("c", None, bad_tod), rec("u", a1, a1b)]:
        f.write(r + "\n")
EOF
cat > "$P/data/clicks.jsonl" <<'EOF'
{"user_id": 1, "ts": -86400001}
{"user_id": 2, "ts": -1}
{"user_id": 3, "ts": 0}
{"user_id": 4, "ts": "2024-01-01 00:00:00"}
{"user_id": 5, "ts": 1.5}
{"user_id": 6, "ts": 86399999}
EOF

(cd "$P" && "$WEIR" check > check.out 2>&1) || { cat "$P/check.out"; fail "check"; }
(cd "$P" && "$WEIR" run > run.out 2>&1) || { cat "$P/run.out"; fail "run"; }

# the accounts' final rows, as PostgreSQL prints them
final=$(python3 - "$P/out/accounts.jsonl" <<'EOF'
import json, sys
rows = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["op"] == "delete": rows.pop(r["id"], None)
    else: rows[r["id"]] = r
for k in sorted(rows):
    r = rows[k]
    print(k, r["opened_at"], r["birthday"], r["wakes_at"], r["updated_at"], sep="|")
EOF
)
want="1|2024-01-15 10:30:00.999999|2024-01-15|24:00:00|2024-01-15 08:30:00.5+00
2|1969-12-31 23:59:59.999999|1969-12-31|00:00:00|1969-12-31 23:59:59+00"
assert_eq "$final" "$want" "accounts decoded by the schema's logical types"

DL=$P/target/dead_letter/cdc.accounts.jsonl
[ -f "$DL" ] || fail "no dead letters for cdc.accounts"
assert_eq "$(wc -l < "$DL")" 3 "three bad account records"
assert_contains "$DL" '"reason":"column opened_at: timestamp out of range: epoch_us 9223372036854775807"' "out of range"
assert_contains "$DL" '"reason":"column opened_at: expected a number (epoch_us: microseconds since 1970-01-01 00:00:00 UTC), found string \"2024-01-15 10:30:00\""' "wrong JSON type"
assert_contains "$DL" '"reason":"column wakes_at: time of day out of range: time_us 86400000001"' "past midnight"
assert_contains "$DL" '"line":3' "the line of the record out of range"

# clicks: days before and after 1970 by the declared epoch_ms encoding
assert_eq "$(cat "$P/out/clicks.jsonl")" '{"window_start":"1969-12-30 00:00:00","clicks":1}
{"window_start":"1969-12-31 00:00:00","clicks":1}
{"window_start":"1970-01-01 00:00:00","clicks":2}' "windows of epoch_ms timestamps"
DL=$P/target/dead_letter/app.clicks.jsonl
assert_eq "$(wc -l < "$DL")" 2 "two bad clicks"
assert_contains "$DL" '"reason":"column ts: expected a number (epoch_ms: milliseconds since 1970-01-01 00:00:00 UTC), found string \"2024-01-01 00:00:00\""' "a string for epoch_ms"
assert_contains "$DL" '"reason":"column ts: expected an integer (epoch_ms: milliseconds since 1970-01-01 00:00:00 UTC), found number 1.5"' "a fraction for epoch_ms"
echo "ok"
