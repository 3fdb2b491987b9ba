# colosim: one non-recursive Makefile.
#
#   make              build build/colosim and build/libcolosim.a
#   make check        build and run every test (CUnit suites, golden, conformance)
#   make bench        engine benchmarks (PHOLD, hold) side by side with SimPy,
#                     the whole replay, LLM serving, the scale grid
#                     (tests/bench/grid.py)
#   make demo         the reference experiment of README.md
#   make validate     fit the co-location models, write docs/VALIDATION.md
#   make deps         install missing Debian packages (.ci/deps)
#   make microbench   build the CUDA calibration suite when nvcc exists
#   make install PREFIX=/usr/local   (install-policy-dev: the plugin headers
#                     and colosim-policy.pc alone)
#   make fuzz         libFuzzer campaign over every harness of tests/fuzz/
#                     (clang; FUZZ_SECONDS=N each, default 60)
#   make allocfail    the allocation-failure walk (tests/alloc/)
#
# Switches: WERROR=1 (warnings are errors), SANITIZE=1 (ASan + UBSan, objects
# go to build-san/ so both builds can live side by side), FUZZ=1 (clang with
# libFuzzer's instrumentation, ASan + UBSan, objects in build-fuzz/; used by
# make fuzz), OPT=-O0 etc., MPI=auto|1|0 (the MPI sweep runner,
# experiments/runner_mpi.c: auto builds it when pkg-config finds Open MPI or
# MPICH, 1 requires it, 0 leaves it out; docs/SCALE.md).

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
FUZZ_CC ?= clang
ifeq ($(FUZZ),1)
BUILD   := build-fuzz
CC      := $(FUZZ_CC)
OPT     := -O1 -g -fno-omit-frame-pointer
SANFLAGS := -fsanitize=fuzzer-no-link,address,undefined \
            -fno-sanitize-recover=undefined
# gcc polices the warnings; clang's NAN and HUGE_VAL are floats it flags.
WARN    := $(filter-out -Werror,$(WARN)) -Wno-double-promotion \
           -Wno-string-concatenation
endif

# MPI: only experiments/runner_mpi.c includes <mpi.h> (as a system header,
# so that its warnings are not ours); everything links the MPI library.
MPI ?= auto
MPI_PKG := $(firstword $(foreach p,ompi-c mpich,$(shell pkg-config --exists $(p) 2>/dev/null && echo $(p))))
ifeq ($(MPI),auto)
MPI := $(if $(MPI_PKG),1,0)
endif
ifeq ($(MPI),1)
ifeq ($(MPI_PKG),)
$(error MPI=1 but pkg-config finds neither ompi-c nor mpich: install libopenmpi-dev, or build with MPI=0)
endif
MPI_CFLAGS := -DCOLOSIM_MPI=1 $(patsubst -I%,-isystem %,$(shell pkg-config --cflags $(MPI_PKG)))
MPI_LIBS   := $(shell pkg-config --libs $(MPI_PKG))
endif

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# libcsv and GLPK (libglpk-dev: gavel's LP) ship no pkg-config file in
# Debian: link them by name.
LIBS     := $(PKG_LIBS) $(MPI_LIBS) -lcsv -lglpk -lm
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
# policies/template.c as bytes, for `colosim policy new`.
TEMPLATE_INC := $(BUILD)/cli/template.inc
# The binaries export their symbols, so that a policy plugin (a shared
# object loaded with --plugin: docs/POLICIES.md) resolves the policy API
# (policies/policy.h) against the colosim that loads it.
EXPORT_DYNAMIC := -rdynamic

# Test suites: tests/test_NAME.c defines `int test_NAME_add(void)`; the list
# of suites is generated from the file names, so adding a suite is adding a file.
TEST_SRC   := $(sort $(wildcard tests/test_*.c))
TEST_NAMES := $(patsubst tests/test_%.c,%,$(TEST_SRC))
TEST_OBJ   := $(TEST_SRC:%.c=$(BUILD)/%.o) $(BUILD)/tests/main.o $(BUILD)/tests/util.o \
              $(BUILD)/tests/world_util.o $(BUILD)/tests/cli_util.o
TEST_BIN   := $(BUILD)/colosim-tests
SUITES_INC := $(BUILD)/tests/suites.inc

BENCH_BINS := $(BUILD)/bench/phold $(BUILD)/bench/hold $(BUILD)/bench/bareheap \
              $(BUILD)/bench/rusage

# Fuzz harnesses (tests/fuzz/, docs/FUZZING.md): tests/fuzz/fuzz_NAME.c is
# target NAME; fuzz_import.c is built once per importer as import-FORMAT.
# Under FUZZ=1 they link libFuzzer; otherwise tests/fuzz/driver.c, which
# replays the seeds and regression inputs in make check.
FUZZ_IMPORTERS := alibaba-v2023 alibaba-v2025 alibaba-genai-v2026 tiresias \
                  azure-llm-2023
FUZZ_NAMES   := $(filter-out import util,$(patsubst tests/fuzz/fuzz_%.c,%,\
                $(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_TARGETS := $(FUZZ_NAMES) $(addprefix import-,$(FUZZ_IMPORTERS))
FUZZ_BINS    := $(addprefix $(BUILD)/fuzz/,$(FUZZ_TARGETS))
FUZZ_COMMON  := $(BUILD)/tests/fuzz/fuzz_util.o
ifeq ($(FUZZ),1)
FUZZ_LINK    := -fsanitize=fuzzer
else
FUZZ_COMMON  += $(BUILD)/tests/fuzz/driver.o
endif
FUZZ_SECONDS ?= 60
FUZZ_OBJ     := $(FUZZ_NAMES:%=$(BUILD)/tests/fuzz/fuzz_%.o) \
                $(FUZZ_IMPORTERS:%=$(BUILD)/tests/fuzz/import-%.o)
.SECONDARY: $(FUZZ_OBJ)

.PHONY: FORCE all check check-only deps-quiet test bench demo deps install \
	install-policy-dev clean microbench callgrind golden validate refit \
	fuzz fuzz-bins fuzz-regress allocfail

all: $(BIN) $(LIB)

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(LIB): $(LIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

$(BIN): $(CLI_OBJ) $(LIB)
	$(CC) $(LDFLAGS) $(EXPORT_DYNAMIC) -o $@ $(CLI_OBJ) $(LIB) $(LIBS)

# Generated lists (subcommands, test suites) change only when a file
# appears or disappears; the cmp keeps dependants from rebuilding otherwise.
$(CMDS_INC): $(CLI_SRC) Makefile
	@mkdir -p $(@D)
	@printf '%s\n' $(foreach n,$(CMD_NAMES),"CMD($(n))") > $@.tmp
	@cmp -s $@.tmp $@ || mv $@.tmp $@; rm -f $@.tmp

# The MPI switch, recorded so that flipping it rebuilds runner_mpi.o.
MPI_STAMP := $(BUILD)/mpi.stamp
$(MPI_STAMP): FORCE
	@mkdir -p $(@D)
	@echo "MPI=$(MPI) $(MPI_CFLAGS) $(MPI_LIBS)" > $@.tmp
	@cmp -s $@.tmp $@ || mv $@.tmp $@; rm -f $@.tmp
FORCE:
$(BUILD)/experiments/runner_mpi.o: CPPFLAGS += $(MPI_CFLAGS)
$(BUILD)/experiments/runner_mpi.o: $(MPI_STAMP)

# The install prefix, the last place sim/datadir.c looks for data files.
$(BUILD)/sim/datadir.o: CPPFLAGS += -DCOLOSIM_PREFIX='"$(PREFIX)"'

$(BUILD)/experiments/cli/main.o: $(CMDS_INC)
$(BUILD)/experiments/cli/main.o: CPPFLAGS += -I$(BUILD)/cli

$(TEMPLATE_INC): policies/template.c
	@mkdir -p $(@D)
	od -An -v -tu1 $< | sed 's/\([0-9][0-9]*\)/\1,/g' > $@.tmp && mv $@.tmp $@

$(BUILD)/experiments/cli/cmd_policy.o: $(TEMPLATE_INC)
$(BUILD)/experiments/cli/cmd_policy.o: CPPFLAGS += -I$(BUILD)/cli

$(SUITES_INC): $(TEST_SRC) Makefile
	@mkdir -p $(@D)
	@printf '%s\n' $(foreach n,$(TEST_NAMES),"SUITE($(n))") > $@.tmp
	@cmp -s $@.tmp $@ || mv $@.tmp $@; rm -f $@.tmp

$(BUILD)/tests/main.o: $(SUITES_INC)
$(BUILD)/tests/main.o: CPPFLAGS += -I$(BUILD)/tests

$(TEST_BIN): $(TEST_OBJ) $(LIB)
	$(CC) $(LDFLAGS) $(EXPORT_DYNAMIC) -o $@ $(TEST_OBJ) $(LIB) $(LIBS)

# The tests run from the project root so that they find models/devices,
# traces/ref and ../shared/traces.
check test: deps-quiet
	$(MAKE) --no-print-directory check-only

# The suite without the dependency step (.ci/deps prints one line).
check-only: $(TEST_BIN) $(BIN) $(FUZZ_BINS)
	sh tests/layering/check.sh
	COLOSIM_BIN=$(BIN) ./$(TEST_BIN)
	sh tests/fuzz/regress.sh $(BUILD) $(FUZZ_TARGETS)

# The fuzz harnesses: one object per importer from fuzz_import.c.
$(BUILD)/tests/fuzz/import-%.o: tests/fuzz/fuzz_import.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -DFUZZ_IMPORTER='"$*"' $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/fuzz/import-%: $(BUILD)/tests/fuzz/import-%.o $(FUZZ_COMMON) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $(FUZZ_LINK) -o $@ $< $(FUZZ_COMMON) $(LIB) $(LIBS)

$(BUILD)/fuzz/%: $(BUILD)/tests/fuzz/fuzz_%.o $(FUZZ_COMMON) $(LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $(FUZZ_LINK) -o $@ $< $(FUZZ_COMMON) $(LIB) $(LIBS)

fuzz-bins: $(FUZZ_BINS)

# The allocation-failure walk (tests/alloc/walk.c): our code's malloc,
# calloc, realloc and strdup go through a counter that fails the N-th call;
# each N of each scenario runs in a child under ASan + LSan.  Always built
# with SANITIZE=1 (make allocfail does that).  WALK_STEP=K walks every K-th.
ALLOC_WRAP := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup
$(BUILD)/alloc/walk: $(BUILD)/tests/alloc/walk.o $(BUILD)/tests/alloc/wrap.o \
		$(LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) $(ALLOC_WRAP) $(EXPORT_DYNAMIC) -o $@ \
		$(BUILD)/tests/alloc/walk.o \
		$(BUILD)/tests/alloc/wrap.o $(LIB) $(LIBS)

allocfail:
	$(MAKE) --no-print-directory SANITIZE=1 build-san/alloc/walk
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
		UBSAN_OPTIONS=print_stacktrace=1 ./build-san/alloc/walk $(WALK)

# The seeds and regression inputs through each harness once (make check).
fuzz-regress: $(FUZZ_BINS)
	sh tests/fuzz/regress.sh $(BUILD) $(FUZZ_TARGETS)

# A libFuzzer campaign: FUZZ_SECONDS per target (FUZZ_TARGETS=... picks).
fuzz:
	$(MAKE) --no-print-directory FUZZ=1 fuzz-bins
	sh tests/fuzz/run.sh build-fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

$(BUILD)/bench/%: $(BUILD)/tests/bench/%.o $(LIB)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(LIBS)

# The scale grid's size knobs (BENCH_MAX_JOBS, BENCH_MAX_GPUS, BENCH_TIMEOUT,
# BENCH_POLICIES, BENCH_KINDS) are read from the environment; the default is
# the quick grid (docs/PERFORMANCE.md, "Scale grid").
bench: $(BENCH_BINS) $(BIN)
	sh tests/bench/run.sh $(BUILD)
	sh tests/bench/replay.sh $(BUILD)
	sh tests/bench/llm.sh $(BUILD)
	sh tests/bench/sched.sh $(BUILD)
	python3 tests/bench/grid.py $(BUILD)

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

# The policy plugin interface alone (no build): policies/policy.h, the
# three base headers it includes, and colosim-policy.pc, so that a plugin
# builds with `pkg-config --cflags colosim-policy` (docs/POLICIES.md).
POLICY_HEADERS := sim/err.h sim/oset.h sim/rng.h sim/time.h
install-policy-dev:
	install -d $(DESTDIR)$(PREFIX)/include/colosim/policies \
		$(DESTDIR)$(PREFIX)/include/colosim/sim \
		$(DESTDIR)$(PREFIX)/share/pkgconfig
	install -m 644 policies/policy.h $(DESTDIR)$(PREFIX)/include/colosim/policies/
	install -m 644 $(POLICY_HEADERS) $(DESTDIR)$(PREFIX)/include/colosim/sim/
	sed -e 's|@PREFIX@|$(PREFIX)|' \
	    -e "s|@VERSION@|$$(sed -n 's/^#define COLOSIM_VERSION "\(.*\)"/\1/p' sim/version.h)|" \
	    policies/colosim-policy.pc.in > $(DESTDIR)$(PREFIX)/share/pkgconfig/colosim-policy.pc

install: $(BIN) install-policy-dev
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/colosim/devices \
		$(DESTDIR)$(PREFIX)/share/colosim/plots $(DESTDIR)$(PREFIX)/share/colosim/traces
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/colosim
	install -m 644 models/devices/*.ini $(DESTDIR)$(PREFIX)/share/colosim/devices/
	install -m 644 plots/*.gp $(DESTDIR)$(PREFIX)/share/colosim/plots/
	install -m 644 traces/manifest.csv $(DESTDIR)$(PREFIX)/share/colosim/traces/

clean:
	rm -rf build build-san build-fuzz

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
