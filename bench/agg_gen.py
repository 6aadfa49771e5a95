#!/usr/bin/env python3
"""Transactions for bench/agg_vs_clickhouse.sh: N JSON lines
{"account_id":A,"merchant":"mM","amount":C,"ts":"..."} over K accounts, deterministic
(fixed seed). Accounts are drawn uniformly, merchants uniformly from 10,000 (so an
account with ~10 transactions has ~10 distinct merchants), amounts in cents 1..100,000,
one second of event time per 1,000 transactions.

usage: agg_gen.py EVENTS ACCOUNTS OUT [SEED]"""
import random
import sys


def main():
    events, accounts, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    rnd = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 20261202)
    base = 1735689600  # 2025-01-01 00:00:00 UTC
    ri = rnd.randrange
    with open(out, "w") as f:
        buf = []
        for i in range(events):
            t = base + i // 1000
            hh, mm, ss = (t // 3600) % 24, (t // 60) % 60, t % 60
            day = 1 + (t - base) // 86400
            buf.append('{"account_id":%d,"merchant":"m%d","amount":%d,"ts":"2025-01-%02d %02d:%02d:%02d"}\n'
                       % (ri(accounts), ri(10000), 1 + ri(100000), day, hh, mm, ss))
            if len(buf) >= 65536:
                f.write("".join(buf))
                buf.clear()
        f.write("".join(buf))


if __name__ == "__main__":
    main()
