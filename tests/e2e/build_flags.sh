# SPDX-License-Identifier: MIT
# gt-test: no-san: reads `make -n`, runs no C code
# The Makefile's flags: a user's CFLAGS/LDFLAGS replace only optimisation and
# debugging, never what the code needs; -Werror only in the test passes.
# Read from `make -n` (commands printed, nothing built).
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/_lib.sh"
unset MAKEFLAGS MFLAGS MAKELEVEL WERROR CFLAGS CPPFLAGS LDFLAGS
B=$TMP/b
obj=$B/obj/src/lib/util/version.o
mk() { make -n -B -C "$ROOT" BUILD="$B" "$@"; }
# needs LINE: the project's own compile flags are all on LINE.
needs() {
    for f in -std=c11 -D_GNU_SOURCE -Wall -Wextra -fPIC -fvisibility=hidden -Iinclude -Isrc/lib -MMD; do
        grep -q -- " $f " <<<"$1 " || fail "'$f' missing from: $1"
    done
}

line=$(mk "$obj" | grep -- " -c ")
needs "$line"
grep -q -- ' -O2 -g ' <<<"$line " || fail "default CFLAGS -O2 -g missing: $line"
grep -q -- '-Werror' <<<"$line" && fail "a plain build uses -Werror: $line"

line=$(mk CFLAGS=-O0 CPPFLAGS=-DGT_TEST_CPP "$obj" | grep -- " -c ")
needs "$line"
grep -q -- ' -O0 ' <<<"$line " && grep -q -- ' -DGT_TEST_CPP ' <<<"$line " || fail "user flags missing: $line"
grep -q -- ' -O2 ' <<<"$line " && fail "CFLAGS=-O0 did not replace -O2: $line"

line=$(mk WERROR=-Werror "$obj" | grep -- " -c ")
grep -q -- ' -Werror ' <<<"$line " || fail "WERROR=-Werror: $line"

# The sanitizers stay on with a user's CFLAGS and LDFLAGS.
# The shared library's file name carries the header's version.
version=$(awk '$1 == "#define" && $2 ~ /^GT_VERSION_(MAJOR|MINOR|PATCH)$/ { v = v s $3; s = "." } END { print v }' \
    "$ROOT/include/gpu_tracker.h")
mk SAN=1 CFLAGS=-O3 LDFLAGS=-Wl,--as-needed "$B/libgputracker.so.$version" >san.txt
grep -- " -c " san.txt | head -n 1 | grep -q -- '-O3 -O1 -fsanitize=address,undefined' || fail "SAN=1 compile: $(head -n 1 san.txt)"
grep -- "-shared" san.txt | grep -q -- '-fsanitize=address,undefined -Wl,--as-needed' || fail "SAN=1 link: $(grep -- -shared san.txt)"

# Every test pass compiles with -Werror.
for target in test-fast check-valgrind check-san; do
    mk "$target" >pass.txt 2>&1 || true
    grep -- ' -c ' pass.txt >compiles.txt || fail "$target compiles nothing: $(tail -n 3 pass.txt)"
    if grep -v -- ' -Werror ' compiles.txt | grep -q .; then
        fail "$target compiles without -Werror: $(grep -v -- ' -Werror ' compiles.txt | head -n 1)"
    fi
done
mk fuzz >pass.txt 2>&1 || true
grep -q -- ' -Werror .*-fsanitize=fuzzer' pass.txt || fail "fuzz compiles without -Werror"
