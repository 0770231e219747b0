# gpu-tracker build.  `make` builds everything; `make demo` and `make test`
# are the two commands of README's quick start.  SAN=1 builds with
# AddressSanitizer + UndefinedBehaviorSanitizer into build-san/.

CC      ?= cc
SAN     ?=
BUILD   ?= $(if $(SAN),build-san,build)
PREFIX  ?= /usr/local

WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
           -Wmissing-prototypes -Wformat=2 -Wcast-qual -Wvla
CFLAGS  ?= -O2 -g
CFLAGS  += -std=c11 -D_GNU_SOURCE $(WARN) -fPIC -fvisibility=hidden \
           -Iinclude -Isrc/lib -MMD -MP
LDLIBS  := -lsqlite3 -lcjson -ldl -lpthread -lm
ifneq ($(SAN),)
CFLAGS  += -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
           -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined
endif
# FUZZ=1 (with SAN=1 CC=clang, see `make fuzz`): coverage for libFuzzer.
ifneq ($(FUZZ),)
CFLAGS  += -fsanitize=fuzzer-no-link
endif

LIB_SRC  := $(shell find src/lib -name '*.c' | sort)
CLI_SRC  := $(wildcard src/cli/*.c)
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
STATIC   := $(BUILD)/libgputracker.a
SHARED   := $(BUILD)/libgputracker.so
BIN      := $(BUILD)/gpu-tracker

TESTS     := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(wildcard tests/unit/test_*.c))
WORKLOADS := $(patsubst tests/workloads/%.c,$(BUILD)/workloads/%,$(wildcard tests/workloads/*.c))
FAKES     := $(patsubst tests/fakes/%.c,$(BUILD)/fakes/%.so,$(wildcard tests/fakes/*.c))
EXAMPLES  := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c))
FUZZ_SRC  := $(wildcard tests/fuzz/fuzz_*.c)
REPLAYS   := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRC))
FUZZERS   := $(patsubst tests/fuzz/%.c,$(BUILD)/fuzzer/%,$(FUZZ_SRC))
FUZZ_TIME ?= 60
# The CLI without main(), for fuzz targets that build in one CLI file and
# need the others it calls.
CLI_LIB   := $(BUILD)/libgtcli.a

# The SPANK plugin for Slurm, built where Debian's libslurm-dev gives
# spank.h.  It runs inside slurmstepd, which no sanitizer runtime is loaded
# into, so sanitizer builds leave it out.
SPANK    := $(if $(SAN),,$(if $(wildcard /usr/include/slurm/spank.h),$(BUILD)/gpu_tracker_spank.so))

.PHONY: all deps test-deps demo test test-fast check-san check-valgrind fuzz fuzz-run install clean python
all: $(STATIC) $(SHARED) $(BIN) $(EXAMPLES) $(SPANK)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(STATIC): $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^

$(SHARED): $(LIB_OBJ)
	$(CC) -shared $(LDFLAGS) -Wl,-soname,libgputracker.so.0 -o $@ $^ $(LDLIBS)

$(BIN): $(CLI_OBJ) $(STATIC)
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(STATIC) $(LDLIBS)

# Slurm loads the plugin by its symbols plugin_name, slurm_spank_*: visible.
$(BUILD)/gpu_tracker_spank.so: src/slurm/spank.c $(STATIC)
	$(CC) $(CFLAGS) -fvisibility=default -shared $(LDFLAGS) -o $@ $< $(STATIC) $(LDLIBS)

$(BUILD)/examples/%: examples/%.c $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(STATIC) $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests $(LDFLAGS) -o $@ $< $(STATIC) $(LDLIBS) -lcmocka

# Workloads are ground-truth programs for end-to-end tests; built without
# sanitizers so their memory figures are what the tests expect.
$(BUILD)/workloads/%: tests/workloads/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -O1 -g $(WARN) -o $@ $< -lpthread -lm

# Workloads that mark sub-tracked code blocks link the library.
$(BUILD)/workloads/subtrack_%: tests/workloads/subtrack_%.c $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -O1 -g $(WARN) -Iinclude $(LDFLAGS) -o $@ $< $(STATIC) $(LDLIBS)

# Fake vendor libraries, loaded through the same dlopen path as the real ones.
$(BUILD)/fakes/%.so: tests/fakes/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=c11 -D_GNU_SOURCE -O1 -g $(WARN) -fPIC -shared -Itests -o $@ $< -lcjson
# The old-driver fake is the same source built with fewer functions.
$(BUILD)/fakes/nvml_old.so: tests/fakes/nvml.c

# Fuzz targets, built two ways: with a replay main that runs the seed corpus
# and kept crashing inputs as a test (any compiler), and for libFuzzer.
$(CLI_LIB): $(filter-out %/main.o,$(CLI_OBJ))
	@rm -f $@
	$(AR) rcs $@ $^

$(BUILD)/fuzz/%: tests/fuzz/%.c tests/fuzz/replay.c $(CLI_LIB) $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< tests/fuzz/replay.c $(CLI_LIB) $(STATIC) $(LDLIBS)

$(BUILD)/fuzzer/%: tests/fuzz/%.c $(CLI_LIB) $(STATIC)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -fsanitize=fuzzer -o $@ $< $(CLI_LIB) $(STATIC) $(LDLIBS)

deps:
	@scripts/setup-deps.sh

test-deps:
	@scripts/setup-deps.sh test

# Builds, then tracks the built-in demo workload (memory, threads, children).
demo: deps
	@$(MAKE) --no-print-directory all $(WORKLOADS)
	$(BIN) --st=0.05 --ru=megabytes --tu=seconds -- $(BUILD)/workloads/demo

test-fast: all $(TESTS) $(WORKLOADS) $(FAKES) $(REPLAYS)
	@BUILD=$(BUILD) tests/run.sh

# The sanitizer pass builds with clang, so one run checks clang's warnings too.
check-san:
	@$(MAKE) --no-print-directory SAN=1 CC=clang test-fast

# End-to-end tests with gpu-tracker under valgrind (a subset: see the script).
check-valgrind: all $(WORKLOADS) $(FAKES)
	@BUILD=$(BUILD) tests/valgrind.sh

# libFuzzer under ASan+UBSan: each target for FUZZ_TIME seconds, from its
# seed corpus (tests/fuzz/corpus) and kept crashing inputs (tests/fuzz/regress).
fuzz:
	@$(MAKE) --no-print-directory SAN=1 FUZZ=1 CC=clang BUILD=build-fuzz fuzz-run

fuzz-run: $(FUZZERS)
	@tests/fuzz/run.sh $(BUILD) $(FUZZ_TIME) $(FUZZERS)

# Everything: the suite (gcc), end-to-end tests under valgrind, the suite
# again under ASan+UBSan (clang), then a short fuzzing pass.
test: test-deps
	@$(MAKE) --no-print-directory test-fast
	@$(MAKE) --no-print-directory check-valgrind
	@$(MAKE) --no-print-directory check-san
	@$(MAKE) --no-print-directory fuzz FUZZ_TIME=3

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(STATIC) $(SHARED) $(DESTDIR)$(PREFIX)/lib/
	install -m 644 include/gpu_tracker.h $(DESTDIR)$(PREFIX)/include/
	$(if $(SPANK),install -m 644 $(SPANK) $(DESTDIR)$(PREFIX)/lib/)

# The Python package with the library inside it, for
# `pip install --no-build-isolation ./python`.
python: $(SHARED)
	cp $(SHARED) python/gpu_tracker/libgputracker.so

clean:
	rm -rf build build-san build-fuzz python/build python/gpu_tracker.egg-info python/gpu_tracker/libgputracker.so

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
