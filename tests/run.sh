#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs every unit test program, fuzz replay, end-to-end script and Python
# test file once and prints one closing line "N passed, N failed, N skipped".
# BUILD names the build folder to test.  A test that cannot run here (no
# privileges, a missing tool) exits with status 77 after printing
# "skipped: <reason>": it is counted apart, never as passed.  Each line gives
# the test's duration; a test still running after GT_TEST_TIMEOUT seconds
# (default 900) is stopped and fails, so a hang cannot eat the whole run.
#
# Tests run in parallel, GT_TEST_JOBS at a time (default three times the
# number of CPUs, as most wait on the workloads they track; GT_TEST_JOBS=1
# runs them one by one), each line printed as its test ends, with the tail
# of the test's output when it fails.  A test file with
# a line "# gt-test: serial" (a reason after it) runs alone, after the
# parallel batch: tests that check CPU figures against a workload's own CPU
# time, or that load the machine.
# GT_TEST_SAN=1 (the sanitizer pass) leaves out the files marked
# "# gt-test: no-san" (see docs/development.md).
#
# make test runs every pass in one batch, so that one pass's tests fill the
# time another's wait on their workloads: SAN_BUILD names a sanitizer build
# whose suite runs too (its tests named san/...), GT_TEST_VALGRIND=1 adds the
# end-to-end tests of tests/valgrind.sh under valgrind (valgrind/...), and
# FUZZ_BUILD with FUZZ_TIME runs each libFuzzer target of that build for
# FUZZ_TIME seconds (fuzzing/...).
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export GT_REF="$PWD/tests/fixtures/reference"
JOBS=${GT_TEST_JOBS:-$((3 * $(nproc)))}
TIMEOUT=${GT_TEST_TIMEOUT:-900}
pass=0 fail=0 skip=0 failed=()
GT_SKIP=77
work=$(mktemp -d)
# Stopped early (^C, SIGTERM), the runner stops the tests still running:
# each runs under timeout(1), which passes the signal on to the test.
stop() {
    local p
    for p in $(jobs -p); do kill $(pgrep -P "$p") "$p" 2>/dev/null; done
    rm -rf "$work"
}
trap stop EXIT
trap 'exit 130' INT TERM

# The tests, in order: names, commands (quoted for eval) and whether they
# run alone.  The longest kinds come first (Python, valgrind, then the unit
# tests, among them a few seconds' random texts under the sanitizers), so
# that the batch does not end waiting on one of them.
names=() cmds=() serial=()
add() { # serial(0/1), name, command...
    local q
    serial+=("$1") names+=("$2")
    shift 2
    printf -v q '%q ' "$@"
    cmds+=("$q")
}
marked() { grep -q "^# gt-test:.*\b$2\b" "$1"; } # file, marker
serial_of() { marked "$1" serial && echo 1 || echo 0; }
# suite KIND BUILD PREFIX SAN: adds the tests of one build of that KIND
# (python, e2e, unit); the build's folder and binary travel in each
# command's environment, so two builds' tests can share the batch.
suite() {
    local kind=$1 build=$2 p=$3 san=$4 t n
    local env=(env GT_BUILD="$PWD/$build" GT_BIN="$PWD/$build/gpu-tracker" ${san:+GT_TEST_SAN=1})
    case $kind in
    python)
        # The Python package: pytest under Debian's python3 (where
        # python3-pytest, -nbclient and -ipykernel are), one entry per test
        # file; pytest's own failures (even "no tests collected") fail the
        # entry.
        for t in tests/python/test_*.py; do
            [ -f "$t" ] || continue
            [ -n "$san" ] && marked "$t" no-san && continue
            add "$(serial_of "$t")" "${p}python/$(basename "$t" .py)" \
                "${env[@]}" tests/python/run.sh /usr/bin/python3 -m pytest -q -p no:cacheprovider "$t"
        done
        # ... and under the python3 first on PATH, which may be another
        # interpreter.
        add 0 "${p}python/smoke-$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || echo none)" \
            "${env[@]}" tests/python/run.sh python3 tests/python/smoke.py
        ;;
    e2e)
        for t in tests/e2e/*.sh; do
            case $(basename "$t") in _*) continue ;; esac # sourced helpers
            [ -f "$t" ] || continue
            [ -n "$san" ] && marked "$t" no-san && continue
            add "$(serial_of "$t")" "${p}e2e/$(basename "$t" .sh)" "${env[@]}" bash "$t"
        done
        ;;
    unit)
        for t in "$build"/tests/test_*; do
            [ -x "$t" ] && add 0 "${p}unit/$(basename "$t")" "$t"
        done
        # Fuzz targets replay their seed corpus and kept crashing inputs.
        for t in "$build"/fuzz/fuzz_*; do
            n=${t##*/fuzz_}
            [ -x "$t" ] && add 0 "${p}fuzz/$n" "$t" "tests/fuzz/corpus/$n" \
                $([ -d "tests/fuzz/regress/$n" ] && echo "tests/fuzz/regress/$n")
        done
        ;;
    esac
}
builds=("$BUILD" "" "${GT_TEST_SAN:+1}")
[ -n "${SAN_BUILD:-}" ] && builds+=("$SAN_BUILD" san/ 1)
each_build() { # kind
    local i
    for ((i = 0; i < ${#builds[@]}; i += 3)); do suite "$1" "${builds[@]:i:3}"; done
}
each_build python
if [ -n "${GT_TEST_VALGRIND:-}" ]; then
    for n in $(tests/valgrind.sh --list); do
        add "$(serial_of "tests/e2e/$n.sh")" "valgrind/$n" env BUILD="$BUILD" tests/valgrind.sh "$n"
    done
fi
each_build unit
# The fuzzers keep a core busy while the end-to-end tests mostly wait.
if [ -n "${FUZZ_BUILD:-}" ]; then
    for t in "$FUZZ_BUILD"/fuzzer/fuzz_*; do
        [ -x "$t" ] && add 0 "fuzzing/${t##*/fuzz_}" tests/fuzz/run.sh "$FUZZ_BUILD" "${FUZZ_TIME:-3}" "$t"
    done
fi
each_build e2e

# start I: test I runs in the background; its output goes to $work/I.log,
# its exit status and duration to $work/I.rc.
start() {
    local i=$1
    (
        t0=$SECONDS
        # Tests run side by side: none reads the runner's stdin.
        eval "timeout -k 10 $TIMEOUT ${cmds[$i]}" >"$work/$i.log" 2>&1 </dev/null
        echo "$? $((SECONDS - t0))" >"$work/$i.rc"
    ) &
    pid_of[$!]=$i
}
# report I: the line of a test that has ended (and its output if it failed).
report() {
    local i=$1 name=${names[$1]} log="$work/$1.log" rc took
    read -r rc took <"$work/$i.rc"
    took="($took s)"
    if [ "$rc" = 0 ]; then
        pass=$((pass + 1)); echo "ok   $name $took"
    elif [ "$rc" = $GT_SKIP ] && grep -q '^skipped: ' "$log"; then
        skip=$((skip + 1)); echo "skip $name $took: $(grep '^skipped: ' "$log" | tail -n 1 | cut -c10-)"
    else
        [ "$rc" = 124 ] || [ "$rc" = 137 ] && echo "timed out after $TIMEOUT s" >>"$log"
        fail=$((fail + 1)); failed+=("$name"); echo "FAIL $name $took"; sed 's/^/     | /' "$log" | tail -n 40
    fi
    rm -f "$log" "$work/$i.rc"
}
# wait_one: waits for a running test to end and reports it.
declare -A pid_of
running=0
wait_one() {
    local pid
    wait -n -p pid
    report "${pid_of[$pid]}"
    unset "pid_of[$pid]"
    running=$((running - 1))
}
# The parallel batch, then the tests that run alone.
for i in "${!names[@]}"; do
    [ "${serial[$i]}" = 1 ] && continue
    [ "$running" -ge "$JOBS" ] && wait_one
    start "$i"; running=$((running + 1))
done
while [ "$running" -gt 0 ]; do wait_one; done
for i in "${!names[@]}"; do
    [ "${serial[$i]}" = 1 ] || continue
    start "$i"; running=1
    wait_one
done
echo
[ ${#failed[@]} -gt 0 ] && echo "failed: ${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
