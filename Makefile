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

.PHONY: all deps test-deps demo test test-fast check-san install clean python
all: $(STATIC) $(SHARED) $(BIN) $(EXAMPLES)

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

deps:
	@scripts/setup-deps.sh

test-deps:
	@scripts/setup-deps.sh test

# Builds, then tracks the built-in demo workload (memory, threads, children).
demo: deps
	@$(MAKE) --no-print-directory all $(WORKLOADS)
	$(BIN) --st=0.05 --ru=megabytes --tu=seconds -- $(BUILD)/workloads/demo

test-fast: all $(TESTS) $(WORKLOADS) $(FAKES)
	@BUILD=$(BUILD) tests/run.sh

# The sanitizer pass builds with clang, so one run checks clang's warnings too.
check-san:
	@$(MAKE) --no-print-directory SAN=1 CC=clang test-fast

# Everything: the suite (gcc), then again under ASan+UBSan (clang).
test: test-deps
	@$(MAKE) --no-print-directory test-fast
	@$(MAKE) --no-print-directory check-san

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include
	install -m 755 $(BIN) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 $(STATIC) $(SHARED) $(DESTDIR)$(PREFIX)/lib/
	install -m 644 include/gpu_tracker.h $(DESTDIR)$(PREFIX)/include/

# The Python package with the library inside it, for
# `pip install --no-build-isolation ./python`.
python: $(SHARED)
	cp $(SHARED) python/gpu_tracker/libgputracker.so

clean:
	rm -rf build build-san python/build python/gpu_tracker.egg-info python/gpu_tracker/libgputracker.so

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
