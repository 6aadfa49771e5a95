#!/usr/bin/env bash
# weir plan over the catalogue of version pairs (tests/lifecycle/catalogue.py): v1 is
# tests/lifecycle/shop, each case edits a copy into v2 and checks every verdict, the
# actions and the reasons of `weir plan --state`. Each case counts as one test.
source "$(dirname "$0")/lib.sh"
exec python3 "$ROOT/tests/lifecycle/catalogue.py"
