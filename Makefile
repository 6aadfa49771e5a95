# weir build. `make` builds build/weir; `make test` runs the whole suite;
# `make SANITIZE=1 ...` builds with ASan+UBSan into build-san/.
CC      ?= cc
SANITIZE ?= 0
PKGS    := yaml-0.1 sqlite3 libxxhash zlib libpcre2-8 rdkafka lmdb jansson libcurl
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   := $(shell pkg-config --libs $(PKGS)) -lpg_query -lm

ifeq ($(SANITIZE),1)
BUILD   ?= build-san
OPT     := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
LDSAN   := -fsanitize=address,undefined
else
BUILD   ?= build
OPT     := -O2 -g
LDSAN   :=
endif

# the one place the version lives: `weir --version` prints it
VERSION := $(shell cat VERSION)
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
DESTDIR ?=

CFLAGS  ?=
CFLAGS  += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wno-unused-parameter \
           -Isrc $(OPT) $(PKG_CFLAGS) -MMD -MP
LDLIBS  := $(PKG_LIBS) $(LDSAN)

SRC      := $(shell find src -name '*.c' | sort)
LIB_SRC  := $(filter-out src/cli/main.c,$(SRC))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
MAIN_OBJ := $(BUILD)/src/cli/main.o
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_REPLAY := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%_replay)

.PHONY: all test unit fuzz-replay fuzz bench demo clean install uninstall
all: $(BUILD)/weir $(BUILD)/nexmark_gen $(BUILD)/kafka-mock $(BUILD)/kafka-admin

$(BUILD)/libweir.a: $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/weir: $(MAIN_OBJ) $(BUILD)/libweir.a
	$(CC) $(OPT) -o $@ $^ $(LDLIBS)

# main.o carries the version (rebuilt when VERSION changes)
$(MAIN_OBJ): CFLAGS += -DWEIR_VERSION='"$(VERSION)"'
$(MAIN_OBJ): VERSION

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libweir.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(shell pkg-config --cflags cmocka) -o $@ $< $(BUILD)/libweir.a $(LDLIBS) $(shell pkg-config --libs cmocka)

# fuzz targets: replay their corpus with a plain driver in the normal suite,
# and build real libFuzzer binaries with clang under `make fuzz`.
$(BUILD)/fuzz/%_replay: tests/fuzz/%.c tests/fuzz/replay_main.c $(BUILD)/libweir.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< tests/fuzz/replay_main.c $(BUILD)/libweir.a $(LDLIBS)

fuzz:
	$(MAKE) BUILD=build-fuzz CC=clang OPT="-O1 -g -fsanitize=fuzzer-no-link,address,undefined" LDSAN="-fsanitize=address,undefined" build-fuzz/libweir.a
	@mkdir -p build-fuzz/fuzz
	for f in $(FUZZ_SRC); do n=$$(basename $$f .c); \
	  clang -std=c11 -D_GNU_SOURCE -Isrc $(PKG_CFLAGS) -O1 -g -fsanitize=fuzzer,address,undefined \
	    -o build-fuzz/fuzz/$$n $$f build-fuzz/libweir.a $(PKG_LIBS) || exit 1; done

# benchmark programs linked against the library
$(BUILD)/bench/%: bench/%.c $(BUILD)/libweir.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libweir.a $(LDLIBS)

$(BUILD)/nexmark_gen: bench/nexmark_gen.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -std=c11 -Wall -Wextra -Werror $< -o $@

# the Kafka cluster of the tests (tools/kafka_mock.c) and the topic administration
# against a real broker (tools/kafka_admin.c, scripts/kafka-broker-start)
$(BUILD)/kafka-mock: tools/kafka_mock.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LDLIBS)

$(BUILD)/kafka-admin: tools/kafka_admin.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LDLIBS)

$(BUILD)/tests/bind_golden: tests/golden/bind_golden.c $(BUILD)/libweir.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(BUILD)/libweir.a $(LDLIBS)

unit: $(UNIT_BIN)
fuzz-replay: $(FUZZ_REPLAY)

test: $(BUILD)/weir $(BUILD)/kafka-mock $(BUILD)/kafka-admin $(BUILD)/tests/bind_golden $(UNIT_BIN) $(FUZZ_REPLAY)
	BUILD=$(BUILD) tests/run-all

bench: $(BUILD)/weir $(BUILD)/nexmark_gen $(BUILD)/bench/engine_bench $(BUILD)/bench/bench_decode
	BUILD=$(BUILD) bench/run

# The README's main command: run examples/commerce end to end into SQLite and show it.
demo: $(BUILD)/weir
	rm -rf examples/commerce/target
	$(BUILD)/weir --project-dir examples/commerce check
	$(BUILD)/weir --project-dir examples/commerce test
	$(BUILD)/weir --project-dir examples/commerce run
	@echo
	@echo "top customers (examples/commerce/target/commerce.db):"
	sqlite3 -header -column examples/commerce/target/commerce.db \
	  "SELECT customer_id, order_count, total_spend, largest_order FROM customer_metrics ORDER BY CAST(total_spend AS REAL) DESC LIMIT 5"

# `make install` puts weir on the PATH: $(DESTDIR)$(PREFIX)/bin/weir (PREFIX=/usr/local
# by default; `make install PREFIX=$$HOME/.local` needs no root; DESTDIR for packaging)
install: $(BUILD)/weir
	install -d $(DESTDIR)$(BINDIR)
	install -m 755 $(BUILD)/weir $(DESTDIR)$(BINDIR)/weir

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/weir

clean:
	rm -rf build build-san build-fuzz

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
