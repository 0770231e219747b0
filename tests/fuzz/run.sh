#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs each libFuzzer target for a bounded time: run.sh BUILD SECONDS FUZZER...
# New inputs go to BUILD/corpus/NAME (the repo's seeds are only read); a
# crashing input is saved as BUILD/crashes/NAME-crash-* and the run fails.
# Keep it as a regression test by copying it into tests/fuzz/regress/NAME/.
set -u
build=$1 secs=$2
shift 2
pass=0 fail=0
for f in "$@"; do
    name=$(basename "$f" | sed 's/^fuzz_//')
    work="$build/corpus/$name"
    mkdir -p "$work" "$build/crashes"
    seeds=(tests/fuzz/corpus/"$name")
    [ -d tests/fuzz/regress/"$name" ] && seeds+=(tests/fuzz/regress/"$name")
    log="$build/fuzz-$name.log"
    # close_fd_mask=3: the parsers' error messages would drown the log; the
    # sanitizers' and libFuzzer's reports still come through.
    if ASAN_OPTIONS=detect_leaks=1 "$f" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -max_len=65536 -close_fd_mask=3 -print_final_stats=1 \
        -artifact_prefix="$build/crashes/$name-" "$work" "${seeds[@]}" >"$log" 2>&1; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
        pass=$((pass + 1))
        echo "ok   fuzz/$name: $runs inputs in ${secs}s"
    else
        fail=$((fail + 1))
        echo "FAIL fuzz/$name (log: $log)"
        grep -E 'ERROR|SUMMARY|Test unit written|deadly signal' "$log" | head -n 20 | sed 's/^/     | /'
    fi
done
echo
echo "fuzzing: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
