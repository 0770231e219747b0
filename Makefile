# SPDX-License-Identifier: MIT
# gpu-tracker build.  `make` builds everything; `make demo` and `make test`
# are the two commands of README's quick start.  SAN=1 builds with
# AddressSanitizer + UndefinedBehaviorSanitizer into build-san/.
#
# CFLAGS, CPPFLAGS and LDFLAGS are the user's (`make CFLAGS=-O0`): they hold
# optimisation and debugging choices only.  The flags the code needs are in
# GT_CFLAGS and GT_LDFLAGS, given on every command whatever CFLAGS says.
# Warnings are errors in the test passes (make test, test-fast, check-*,
# fuzz: WERROR=-Werror) and only warnings in a user's build.

CC      ?= cc
SAN     ?=
BUILD   ?= $(if $(SAN),build-san,build)
WERROR  ?=

WARN    := -Wall -Wextra $(WERROR) -Wshadow -Wstrict-prototypes \
           -Wmissing-prototypes -Wformat=2 -Wcast-qual -Wvla
CFLAGS  ?= -O2 -g
GT_CFLAGS  := -std=c11 -D_GNU_SOURCE $(WARN) -fPIC -fvisibility=hidden \
              -Iinclude -Isrc/lib -MMD -MP
GT_LDFLAGS :=
LDLIBS  := -lsqlite3 -lcjson -ldl -lpthread -lm
# Flags after the user's, so that they win (the sanitizers' -O1).
GT_LATE :=
ifneq ($(SAN),)
GT_LATE    += -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
              -fno-omit-frame-pointer
GT_LDFLAGS += -fsanitize=address,undefined
endif
# FUZZ=1 (with SAN=1 CC=clang, see `make fuzz`): coverage for libFuzzer.
ifneq ($(FUZZ),)
GT_LATE    += -fsanitize=fuzzer-no-link
endif
ALL_CFLAGS  = $(GT_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(GT_LATE)
ALL_LDFLAGS = $(GT_LDFLAGS) $(LDFLAGS)

LIB_SRC  := $(shell find src/lib -name '*.c' -not -name '*.bpf.c' | sort)
CLI_SRC  := $(wildcard src/cli/*.c)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
# The version is GT_VERSION_MAJOR/MINOR/PATCH in include/gpu_tracker.h.  The
# shared library is libgputracker.so.MAJOR.MINOR.PATCH with the soname
# libgputracker.so.MAJOR, and links libgputracker.so.MAJOR and
# libgputracker.so to it, in the build folder as where it is installed.
version_part = $(shell sed -n 's/^\#define GT_VERSION_$(1) \([0-9][0-9]*\)$$/\1/p' include/gpu_tracker.h)
VERSION_MAJOR := $(call version_part,MAJOR)
VERSION  := $(VERSION_MAJOR).$(call version_part,MINOR).$(call version_part,PATCH)
SONAME   := libgputracker.so.$(VERSION_MAJOR)
# The Python package's version, written from the header too (not in git).
PY_VERSION := python/gpu_tracker/_version.py
STATIC   := $(BUILD)/libgputracker.a
SHARED   := $(BUILD)/libgputracker.so
SHARED_REAL := $(BUILD)/libgputracker.so.$(VERSION)
PC       := $(BUILD)/gputracker.pc
BIN      := $(BUILD)/gpu-tracker

TESTS     := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_*.c))
WORKLOADS := $(patsubst tests/workloads/%.c,$(BUILD)/workloads/%,$(wildcard tests/workloads/*.c))
FAKES     := $(patsubst tests/fakes/%.c,$(BUILD)/fakes/%.so,$(wildcard tests/fakes/*.c))
# Programs the tests ask about the product (tests/tools/): columns prints
# the tracking file's columns as the metric table lays them out.
TEST_TOOLS := $(patsubst tests/tools/%.c,$(BUILD)/tests/tools/%,$(wildcard tests/tools/*.c))
EXAMPLES  := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c))
FUZZ_SRC  := $(wildcard tests/fuzz/fuzz_*.c)
REPLAYS   := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))
FUZZERS   := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzzer/%,$(FUZZ_SRC))
FUZZ_TIME ?= 60
# The CLI without main(), for unit tests and fuzz targets of its parts
# (included as "cli/name.h").
CLI_LIB   := $(BUILD)/libgtcli.a
# Writes the man page's option lists from the CLI's option tables.
GEN_MAN   := $(BUILD)/tools/gen_man
# The test build: the product with its test hooks, which read the variables
# the tests set (src/lib/util/test_hooks.h).  Only src/lib/util/test_hooks.c
# differs, compiled with -DGT_TEST_HOOKS: its object, linked before the
# library's archive, stands in for the production one.  The unit tests link
# it; the end-to-end tests that set a hook run $(BUILD)/hooks/gpu-tracker,
# and the Python tests load $(BUILD)/hooks/libgputracker.so.  `make` (all)
# builds none of it: the product ignores those variables.
HOOKS_OBJ := $(BUILD)/obj/hooks/test_hooks.o
HOOKS_BIN := $(BUILD)/hooks/gpu-tracker
HOOKS_LIB := $(BUILD)/hooks/libgputracker.so

# The event backend (src/lib/events/), built where libbpf's headers,
# bpftool and clang's BPF target are found (Debian: libbpf-dev, bpftool,
# clang); elsewhere it is left out and --events=on says so.  The BPF object
# is compiled with clang whatever CC is, and bpftool writes its skeleton
# into the build folder: a build output, never committed.
BPF_CLANG ?= clang
BPFTOOL   ?= $(or $(shell command -v bpftool 2>/dev/null),$(wildcard /usr/sbin/bpftool))
EVENTS    := $(if $(and $(BPFTOOL),$(shell command -v $(BPF_CLANG) 2>/dev/null),$(shell pkg-config --exists libbpf 2>/dev/null && echo y)),1)
EVENTS_GEN := $(BUILD)/gen
ifneq ($(EVENTS),)
GT_CFLAGS += -DGT_HAVE_EVENTS -I$(EVENTS_GEN)
LDLIBS    += $(shell pkg-config --libs libbpf)
endif
# <asm/types.h> lives under the multiarch folder, which -target bpf omits.
# libbpf's BPF_PROG gives every program a ctx it may not use.
BPF_ARCH_INC := /usr/include/$(shell gcc -print-multiarch 2>/dev/null)

$(EVENTS_GEN)/events.bpf.o: src/lib/events/events.bpf.c src/lib/events/events_shared.h
	@mkdir -p $(dir $@)
	$(BPF_CLANG) -g -O2 -target bpf -mcpu=v3 $(WARN) -Wno-unused-parameter -idirafter $(BPF_ARCH_INC) -Isrc/lib -c $< -o $@

$(EVENTS_GEN)/events.skel.h: $(EVENTS_GEN)/events.bpf.o
	$(BPFTOOL) gen skeleton $< name gt_events_bpf >$@.tmp && mv $@.tmp $@

ifneq ($(EVENTS),)
$(BUILD)/obj/src/lib/events/events.o: $(EVENTS_GEN)/events.skel.h
endif

# The SPANK plugin for Slurm, built where Debian's libslurm-dev gives
# spank.h.  It runs inside slurmstepd, which no sanitizer runtime is loaded
# into, so sanitizer builds leave it out.
SPANK    := $(if $(SAN),,$(if $(wildcard /usr/include/slurm/spank.h),$(BUILD)/gpu_tracker_spank.so))

.PHONY: all deps test-deps demo test test-fast test-build test-builds build-gcc build-san build-fuzz \
        check-san check-valgrind fuzz fuzz-build fuzz-run install uninstall clean python man print-ldlibs FORCE
all: $(STATIC) $(SHARED) $(BIN) $(EXAMPLES) $(SPANK) $(PY_VERSION)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(STATIC): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(SHARED_REAL): $(LIB_OBJ)
	$(CC) -shared $(ALL_LDFLAGS) -Wl,-soname,$(SONAME) -o $@ $^ $(LDLIBS)

$(BUILD)/$(SONAME): $(SHARED_REAL)
	ln -sf $(notdir $<) $@

$(SHARED): $(BUILD)/$(SONAME)
	ln -sf $(SONAME) $@

$(BIN): $(CLI_OBJ) $(STATIC)
	$(CC) $(ALL_LDFLAGS) -o $@ $(CLI_OBJ) $(STATIC) $(LDLIBS)

$(HOOKS_OBJ): src/lib/util/test_hooks.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DGT_TEST_HOOKS -c $< -o $@

$(HOOKS_BIN): $(CLI_OBJ) $(HOOKS_OBJ) $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $(CLI_OBJ) $(HOOKS_OBJ) $(STATIC) $(LDLIBS)

$(HOOKS_LIB): $(filter-out %/util/test_hooks.o,$(LIB_OBJ)) $(HOOKS_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -shared $(ALL_LDFLAGS) -Wl,-soname,$(SONAME) -o $@ $^ $(LDLIBS)

# Slurm loads the plugin by its symbols plugin_name, slurm_spank_*: visible.
$(BUILD)/gpu_tracker_spank.so: src/slurm/spank.c $(STATIC)
	$(CC) $(ALL_CFLAGS) -fvisibility=default -shared $(ALL_LDFLAGS) -o $@ $< $(STATIC) $(LDLIBS)

$(BUILD)/examples/%: examples/%.c $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(STATIC) $(LDLIBS)

# Unit tests of the CLI's parts include them as "cli/name.h" and link the
# CLI without main().
$(BUILD)/tests/%: tests/unit/%.c $(HOOKS_OBJ) $(CLI_LIB) $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests -Isrc $(ALL_LDFLAGS) -o $@ $< $(HOOKS_OBJ) $(CLI_LIB) $(STATIC) $(LDLIBS) -lcmocka

$(BUILD)/tests/tools/%: tests/tools/%.c $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Isrc/lib $(ALL_LDFLAGS) -o $@ $< $(STATIC) $(LDLIBS)

# The SPANK plugin's harness stands in for slurmstepd: the plugin's calls to
# Slurm's functions, and to the libc calls it interposes, reach its own.
$(BUILD)/tests/test_spank: LDLIBS += -rdynamic
$(BUILD)/tests/test_spank: | $(SPANK)

# Workloads are ground-truth programs for end-to-end tests; built without
# sanitizers so their memory figures are what the tests expect.
$(BUILD)/workloads/%: tests/workloads/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -O1 -g $(WARN) -o $@ $< -lpthread -lm

# Workloads that mark sub-tracked code blocks link the library.
$(BUILD)/workloads/subtrack_%: tests/workloads/subtrack_%.c $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -O1 -g $(WARN) -Iinclude $(ALL_LDFLAGS) -o $@ $< $(STATIC) $(LDLIBS)

# Fake vendor libraries, loaded through the same dlopen path as the real ones;
# they include the backends' declarations (src/lib/gpu/*_decl.h).
$(BUILD)/fakes/%.so: tests/fakes/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -O1 -g $(WARN) -fPIC -shared -Itests -Isrc/lib -MMD -MP -o $@ $< -lcjson
# The old-driver and R525 fakes are the same source built with other functions.
$(BUILD)/fakes/nvml_old.so $(BUILD)/fakes/nvml_cc.so: tests/fakes/nvml.c

# Fuzz targets, built two ways: with a replay main that runs the seed corpus
# and kept crashing inputs as a test (any compiler), and for libFuzzer.
$(CLI_LIB): $(filter-out %/main.o,$(CLI_OBJ))
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/replay.c $(CLI_LIB) $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Isrc $(ALL_LDFLAGS) -o $@ $< tests/fuzz/replay.c $(CLI_LIB) $(STATIC) $(LDLIBS)

$(BUILD)/fuzzer/%: tests/fuzz/%.c $(CLI_LIB) $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Isrc $(ALL_LDFLAGS) -fsanitize=fuzzer -o $@ $< $(CLI_LIB) $(STATIC) $(LDLIBS)

# The man page's option lists are written from the option tables:
# `make man` rewrites them in docs/gpu-tracker.1 (see tools/gen_man.c), and
# tests/e2e/cli_options.sh fails when the page is not what it would write.
$(GEN_MAN): tools/gen_man.c $(CLI_LIB) $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Isrc $(ALL_LDFLAGS) -o $@ $< $(CLI_LIB) $(STATIC) $(LDLIBS)

man: $(GEN_MAN)
	$(GEN_MAN) docs/gpu-tracker.1 >docs/gpu-tracker.1.tmp || { rm -f docs/gpu-tracker.1.tmp; exit 1; }
	mv docs/gpu-tracker.1.tmp docs/gpu-tracker.1

deps:
	@scripts/setup-deps.sh

# The libraries gpu-tracker links, for scripts that link it themselves
# (bench/gpu-check's bundle).
print-ldlibs:
	@echo $(LDLIBS)

test-deps:
	@scripts/setup-deps.sh test

# Builds, then tracks the built-in demo workload (memory, threads, children).
demo: deps
	@$(MAKE) --no-print-directory all $(WORKLOADS)
	$(BIN) --st=0.05 --ru=megabytes --tu=seconds -- $(BUILD)/workloads/demo

# The test passes build with WERROR=-Werror: a warning fails them.  Builds
# run on every CPU (-j$(NPROC)) unless make was given its own -j.
NPROC := $(shell nproc 2>/dev/null || echo 1)
PAR    = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC))
test-fast:
	@$(MAKE) --no-print-directory $(PAR) WERROR=-Werror test-build
	@BUILD=$(BUILD) tests/run.sh

test-build: all $(HOOKS_BIN) $(HOOKS_LIB) $(TESTS) $(TEST_TOOLS) $(WORKLOADS) $(FAKES) $(REPLAYS) $(GEN_MAN)

# The sanitizer pass builds with clang, so one run checks clang's warnings
# too.  It runs what the sanitizers can check: the unit tests, the fuzz
# replays, the end-to-end tests and the Python tests that call the library;
# the normal pass runs the files marked "# gt-test: no-san", which run no C
# code or only call the library as other tests do (docs/development.md).
check-san:
	@$(MAKE) --no-print-directory SAN=1 CC=clang GT_TEST_SAN=1 test-fast

# End-to-end tests with gpu-tracker under valgrind (a subset: see the script).
check-valgrind:
	@$(MAKE) --no-print-directory $(PAR) WERROR=-Werror all $(HOOKS_BIN) $(WORKLOADS) $(FAKES)
	@BUILD=$(BUILD) tests/valgrind.sh

# libFuzzer under ASan+UBSan: each target for FUZZ_TIME seconds, from its
# seed corpus (tests/fuzz/corpus) and kept crashing inputs (tests/fuzz/regress).
FUZZ_VARS := SAN=1 FUZZ=1 CC=clang BUILD=build-fuzz WERROR=-Werror
fuzz:
	@$(MAKE) --no-print-directory $(PAR) $(FUZZ_VARS) fuzz-build
	@$(MAKE) --no-print-directory $(FUZZ_VARS) fuzz-run

fuzz-build: $(FUZZERS)

fuzz-run: $(FUZZERS)
	@tests/fuzz/run.sh $(BUILD) $(FUZZ_TIME) $(FUZZERS)

# Everything: the suite (gcc), the suite again under ASan+UBSan (clang),
# end-to-end tests under valgrind and a short fuzzing pass.  The three
# builds (gcc, clang with sanitizers, clang for libFuzzer) run side by side
# first; then one batch of tests/run.sh runs all four passes side by side
# (test-fast, check-san, check-valgrind and fuzz run one pass each).
test: test-deps
	@$(MAKE) --no-print-directory $(PAR) test-builds
	@BUILD=$(BUILD) SAN_BUILD=build-san GT_TEST_VALGRIND=1 FUZZ_BUILD=build-fuzz FUZZ_TIME=3 tests/run.sh

test-builds: build-gcc build-san build-fuzz
build-gcc:
	@$(MAKE) --no-print-directory WERROR=-Werror test-build
build-san:
	@$(MAKE) --no-print-directory SAN=1 CC=clang WERROR=-Werror test-build
build-fuzz:
	@$(MAKE) --no-print-directory $(FUZZ_VARS) fuzz-build

# Installation directories (DESTDIR prefixes them all, for staging).
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
# Under PREFIX, gputracker.pc names directories relative to ${prefix}.
pc_dir = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))

# pkg-config's description of the library; rewritten when the install
# directories change.
$(PC): include/gpu_tracker.h FORCE
	@mkdir -p $(dir $@)
	@printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(call pc_dir,$(LIBDIR))' \
	    'includedir=$(call pc_dir,$(INCLUDEDIR))' '' 'Name: gputracker' \
	    'Description: measures the RAM, GPU RAM, CPU, GPU and time a process tree used' \
	    'Version: $(VERSION)' 'Libs: -L$${libdir} -lgputracker' \
	    'Libs.private: $(LDLIBS)' 'Cflags: -I$${includedir}' >$@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv -f $@.tmp $@; fi
FORCE:

# Rewritten only when the header's version differs from it, so that the
# package's files do not change with every build.  The builds of make test
# (gcc, sanitizers, fuzzing) run side by side and all write this one file:
# each writes its own temporary file and renames it into place.
$(PY_VERSION): include/gpu_tracker.h FORCE
	@tmp=$@.tmp.$$$$; printf '%s\n' '# SPDX-License-Identifier: MIT' \
	    '"""The version of this package: the version of the C library it is built for.' \
	    'Written by make from GT_VERSION_MAJOR/MINOR/PATCH in include/gpu_tracker.h;' \
	    'do not edit.  The library'"'"'s gt_version() must return it."""' \
	    "__version__ = '$(VERSION)'" >$$tmp && \
	if cmp -s $$tmp $@; then rm -f $$tmp; else mv -f $$tmp $@; fi

# What install puts in place, under DESTDIR; uninstall removes exactly these.
INSTALLED := $(BINDIR)/gpu-tracker $(LIBDIR)/libgputracker.a $(LIBDIR)/libgputracker.so.$(VERSION) \
             $(LIBDIR)/$(SONAME) $(LIBDIR)/libgputracker.so $(INCLUDEDIR)/gpu_tracker.h \
             $(PKGCONFIGDIR)/gputracker.pc $(MANDIR)/man1/gpu-tracker.1 \
             $(if $(SPANK),$(LIBDIR)/gpu_tracker_spank.so)

install: all $(PC)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
	    $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/
	install -m 644 $(STATIC) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(SHARED_REAL) $(DESTDIR)$(LIBDIR)/
	ln -sf libgputracker.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libgputracker.so
	install -m 644 include/gpu_tracker.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(PC) $(DESTDIR)$(PKGCONFIGDIR)/
	install -m 644 docs/gpu-tracker.1 $(DESTDIR)$(MANDIR)/man1/
	$(if $(SPANK),install -m 755 $(SPANK) $(DESTDIR)$(LIBDIR)/)

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))

# The Python package with the library inside it, for
# `pip install --no-build-isolation ./python`.
python: $(SHARED) $(PY_VERSION)
	cp $(SHARED) python/gpu_tracker/libgputracker.so

clean:
	rm -rf build build-san build-fuzz python/build python/gpu_tracker.egg-info python/gpu_tracker/libgputracker.so $(PY_VERSION)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
