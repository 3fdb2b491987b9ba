# colosim: one non-recursive Makefile.
#
#   make              build build/colosim and build/libcolosim.a
#   make check        build and run every test (CUnit suites, golden, conformance)
#   make bench        engine benchmarks (PHOLD, hold) side by side with SimPy,
#                     the whole replay, LLM serving
#   make demo         the reference experiment of README.md
#   make validate     fit the co-location models, write docs/VALIDATION.md
#   make deps         install missing Debian packages (.ci/deps)
#   make microbench   build the CUDA calibration suite when nvcc exists
#   make install PREFIX=/usr/local
#
# Switches: WERROR=1 (warnings are errors), SANITIZE=1 (ASan + UBSan, objects
# go to build-san/ so both builds can live side by side), OPT=-O0 etc.

PREFIX   ?= /usr/local
CC       ?= cc
OPT      ?= -O2 -g
PKGS     := gsl sqlite3 inih cunit libcurl nettle jansson
BUILD    := build

WARN := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
        -Wmissing-prototypes -Wpointer-arith -Wcast-qual -Wwrite-strings \
        -Wformat=2 -Wundef -Wvla -Wnull-dereference -Wdouble-promotion
# CI (CI=true in the environment) turns warnings into errors, so that .ci/run
# calls exactly the README's `make check`.
ifeq ($(CI),true)
WERROR ?= 1
endif
ifeq ($(WERROR),1)
WARN += -Werror
endif
ifeq ($(SANITIZE),1)
BUILD   := build-san
OPT     := -O1 -g -fno-omit-frame-pointer
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined
endif

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# libcsv ships no pkg-config file in Debian: link it by name.
LIBS     := $(PKG_LIBS) -lcsv -lm
CPPFLAGS += -I. -D_POSIX_C_SOURCE=200809L
CFLAGS   := -std=c11 $(OPT) $(WARN) $(SANFLAGS) $(PKG_CFLAGS) $(EXTRA_CFLAGS)
LDFLAGS  += $(SANFLAGS)

# Every .c in the library folders goes into libcolosim.a; the command line
# (experiments/cli/, the only code that prints and exits) links on top of it.  New
# files need no Makefile edit.
LIB_DIRS := sim sim/world models models/zoo models/calibration traces policies experiments plots
LIB_SRC  := $(foreach d,$(LIB_DIRS),$(wildcard $(d)/*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/%.o)
LIB      := $(BUILD)/libcolosim.a
BIN      := $(BUILD)/colosim
CLI_SRC  := $(sort $(wildcard experiments/cli/*.c))
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/%.o)
CMD_NAMES := $(patsubst experiments/cli/cmd_%.c,%,$(filter experiments/cli/cmd_%.c,$(CLI_SRC)))
CMDS_INC := $(BUILD)/cli/cmds.inc

# Test suites: tests/test_NAME.c defines `int test_NAME_add(void)`; the list
# of suites is generated from the file names, so adding a suite is adding a file.
TEST_SRC   := $(sort $(wildcard tests/test_*.c))
TEST_NAMES := $(patsubst tests/test_%.c,%,$(TEST_SRC))
TEST_OBJ   := $(TEST_SRC:%.c=$(BUILD)/%.o) $(BUILD)/tests/main.o $(BUILD)/tests/util.o \
              $(BUILD)/tests/world_util.o
TEST_BIN   := $(BUILD)/colosim-tests
SUITES_INC := $(BUILD)/tests/suites.inc

BENCH_BINS := $(BUILD)/bench/phold $(BUILD)/bench/hold $(BUILD)/bench/bareheap

.PHONY: all check check-only deps-quiet test bench demo deps install clean microbench callgrind golden validate refit

all: $(BIN) $(LIB)

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(LIB): $(LIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

$(BIN): $(CLI_OBJ) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(LIBS)

# Generated lists (subcommands, test suites) change only when a file
# appears or disappears; the cmp keeps dependants from rebuilding otherwise.
$(CMDS_INC): $(CLI_SRC) Makefile
	@mkdir -p $(@D)
	@printf '%s\n' $(foreach n,$(CMD_NAMES),"CMD($(n))") > $@.tmp
	@cmp -s $@.tmp $@ || mv $@.tmp $@; rm -f $@.tmp

# The install prefix, the last place sim/datadir.c looks for data files.
$(BUILD)/sim/datadir.o: CPPFLAGS += -DCOLOSIM_PREFIX='"$(PREFIX)"'

$(BUILD)/experiments/cli/main.o: $(CMDS_INC)
$(BUILD)/experiments/cli/main.o: CPPFLAGS += -I$(BUILD)/cli

$(SUITES_INC): $(TEST_SRC) Makefile
	@mkdir -p $(@D)
	@printf '%s\n' $(foreach n,$(TEST_NAMES),"SUITE($(n))") > $@.tmp
	@cmp -s $@.tmp $@ || mv $@.tmp $@; rm -f $@.tmp

$(BUILD)/tests/main.o: $(SUITES_INC)
$(BUILD)/tests/main.o: CPPFLAGS += -I$(BUILD)/tests

$(TEST_BIN): $(TEST_OBJ) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $(TEST_OBJ) $(LIB) $(LIBS)

# The tests run from the project root so that they find models/devices,
# traces/ref and ../shared/traces.
check test: deps-quiet
	$(MAKE) --no-print-directory check-only

# The suite without the dependency step (.ci/deps prints one line).
check-only: $(TEST_BIN) $(BIN)
	sh tests/layering/check.sh
	COLOSIM_BIN=$(BIN) ./$(TEST_BIN)

$(BUILD)/bench/%: $(BUILD)/tests/bench/%.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(LIBS)

bench: $(BENCH_BINS) $(BIN)
	sh tests/bench/run.sh $(BUILD)
	sh tests/bench/replay.sh $(BUILD)
	sh tests/bench/llm.sh $(BUILD)

callgrind: $(BENCH_BINS)
	sh tests/bench/callgrind.sh $(BUILD)

# Regenerates the golden metrics on purpose (see tests/golden/regen.sh).
golden: $(BIN)
	sh tests/golden/regen.sh $(BIN)

# The co-location fits on the public measurements (../shared/measurements,
# skipped with a message where absent): writes docs/VALIDATION.md.
# `make refit` also regenerates models/train_fits.c and prints the fitted
# device-profile lines (docs/VALIDATION.md says where they go).
MEAS ?= ../shared/measurements
validate: $(BIN)
	$(BIN) fit --data $(MEAS) --validation docs/VALIDATION.md

refit: $(BIN)
	$(BIN) fit --data $(MEAS) --validation docs/VALIDATION.md \
		--fits-c models/train_fits.c --keys /dev/stdout

# The README's main command: installs what is missing, builds, runs the
# reference experiment into results/demo.db, prints the report and writes
# the figures under results/demo/.
demo: deps
	$(MAKE) all
	@mkdir -p results
	./$(BIN) run experiments/demo.ini -j 2 --overwrite
	./$(BIN) report results/demo.db --experiment demo
	./$(BIN) plot results/demo.db --experiment demo --out results/demo

deps:
	sh .ci/deps

deps-quiet:
	@sh .ci/deps

microbench:
	$(MAKE) -C models/calibration/microbench BUILD=$(abspath $(BUILD))/microbench

install: $(BIN)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/colosim/devices \
		$(DESTDIR)$(PREFIX)/share/colosim/plots $(DESTDIR)$(PREFIX)/share/colosim/traces
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/colosim
	install -m 644 models/devices/*.ini $(DESTDIR)$(PREFIX)/share/colosim/devices/
	install -m 644 plots/*.gp $(DESTDIR)$(PREFIX)/share/colosim/plots/
	install -m 644 traces/manifest.csv $(DESTDIR)$(PREFIX)/share/colosim/traces/

clean:
	rm -rf build build-san

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
