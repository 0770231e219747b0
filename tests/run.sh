#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs every unit test program and end-to-end script once and prints one
# closing line "N passed, N failed, N skipped".  BUILD names the build folder
# to test.  A test that cannot run here (no privileges, a missing tool) exits
# with status 77 after printing "skipped: <reason>": it is counted apart,
# never as passed.  Each line gives the test's duration; a test still running
# after GT_TEST_TIMEOUT seconds (default 900) is stopped and fails, so a hang
# cannot eat the whole run.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export GT_BUILD="$PWD/$BUILD" GT_BIN="$PWD/$BUILD/gpu-tracker" GT_REF="$PWD/tests/fixtures/reference"
pass=0 fail=0 skip=0 failed=()
GT_SKIP=77
run() { # name, command...
    local name=$1 log t0=$SECONDS
    shift
    log=$(mktemp)
    timeout -k 10 "${GT_TEST_TIMEOUT:-900}" "$@" >"$log" 2>&1
    local rc=$? took="($((SECONDS - t0)) s)"
    if [ $rc = 0 ]; then
        pass=$((pass + 1)); echo "ok   $name $took"
    elif [ $rc = $GT_SKIP ] && grep -q '^skipped: ' "$log"; then
        skip=$((skip + 1)); echo "skip $name $took: $(grep '^skipped: ' "$log" | tail -n 1 | cut -c10-)"
    else
        [ $rc = 124 ] || [ $rc = 137 ] && echo "timed out after ${GT_TEST_TIMEOUT:-900} s" >>"$log"
        fail=$((fail + 1)); failed+=("$name"); echo "FAIL $name $took"; sed 's/^/     | /' "$log" | tail -n 40
    fi
    rm -f "$log"
}
for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] && run "unit/$(basename "$t")" "$t"
done
# Fuzz targets replay their seed corpus and kept crashing inputs.
for t in "$BUILD"/fuzz/fuzz_*; do
    n=${t##*/fuzz_}
    [ -x "$t" ] && run "fuzz/$n" "$t" "tests/fuzz/corpus/$n" $([ -d "tests/fuzz/regress/$n" ] && echo "tests/fuzz/regress/$n")
done
for t in tests/e2e/*.sh; do
    case $(basename "$t") in _*) continue ;; esac # sourced helpers
    [ -f "$t" ] && run "e2e/$(basename "$t" .sh)" bash "$t"
done
# The Python package: pytest under Debian's python3 (where python3-pytest,
# -nbclient and -ipykernel are), one entry per test file; pytest's own
# failures (even "no tests collected") fail the entry.
for t in tests/python/test_*.py; do
    [ -f "$t" ] && run "python/$(basename "$t" .py)" tests/python/run.sh /usr/bin/python3 -m pytest -q -p no:cacheprovider "$t"
done
# ... and under the python3 first on PATH, which may be another interpreter.
run "python/smoke-$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || echo none)" \
    tests/python/run.sh python3 tests/python/smoke.py
echo
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
