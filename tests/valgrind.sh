#!/bin/bash
# SPDX-License-Identifier: MIT
# Runs end-to-end tests with gpu-tracker under valgrind's memcheck: any
# invalid read or write, use of uninitialised memory, or definitely or
# indirectly lost block fails.  The tracked commands themselves run
# natively (children are not traced), so the tests' ground truth holds.
#
# A representative subset, to keep `make test` short (about 40 s): every
# exit path (normal, command failing or killed by a signal, command not
# found, tracker killed or sent SIGHUP, report or tracking file unwritable,
# file deleted mid-run, vanishing /proc files, fork bomb, the -o file
# refused, kept or replaced, a closed stdout or pipe), CSV and SQLite, a
# process tree and orphans.  Left out: track_signals, track_files and
# track_attach (exit paths the subset covers; they wait for the samples they
# need, so `tests/valgrind.sh track_signals track_files track_attach`
# passes beside two CPU hogs, in under 90 s), and track_cpu, track_spike, track_memory,
# track_options, track_security (checks of figures or of option parsing,
# which the sanitizer pass and the fuzzers, with leak detection, cover), and
# the sub-track tests (reading and writing files only: the sanitizer pass
# with LeakSanitizer and the fuzzers cover them; `VALGRIND_TESTS=
# subtrack_compare tests/valgrind.sh` passes, in 35 s).
# Names given as arguments, or VALGRIND_TESTS="track_options ...", pick
# others; `--list` prints the subset.  Each test has its own log folder, so
# that runs of this script can go side by side (make test runs one a test).
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
DEFAULT="track_status track_faults track_tree track_orphan track_output"
[ "${1:-}" = --list ] && { echo "${VALGRIND_TESTS:-$DEFAULT}"; exit 0; }
SUBSET=${*:-${VALGRIND_TESTS:-$DEFAULT}}
export GT_BUILD="$PWD/$BUILD" GT_REF="$PWD/tests/fixtures/reference"
mkdir -p "$PWD/$BUILD/valgrind"
chmod 1777 "$PWD/$BUILD/valgrind" # the fork-bomb test runs gpu-tracker as nobody
pass=0 fail=0
for name in $SUBSET; do
    logs="$PWD/$BUILD/valgrind/$name"
    rm -rf "$logs"
    mkdir -p "$logs"
    chmod 1777 "$logs"
    # The production binary, and the test build's for tests that set its
    # hooks (use_hooks in tests/e2e/_lib.sh).
    for bin in gpu-tracker hooks/gpu-tracker; do
        mkdir -p "$(dirname "$logs/$bin")"
        cat >"$logs/$bin" <<EOF
#!/bin/sh
exec valgrind -q --vgdb=no --suppressions="$PWD/tests/valgrind.supp" --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect \
    --errors-for-leak-kinds=definite,indirect --log-file="$logs/vg.%p.log" "$PWD/$BUILD/$bin" "\$@"
EOF
        chmod 755 "$logs/$bin"
    done
    out=$(GT_BIN="$logs/gpu-tracker" GT_HOOKS_BIN="$logs/hooks/gpu-tracker" bash "tests/e2e/$name.sh" 2>&1)
    rc=$?
    # valgrind's reports are lines "==PID== ..."; its notes ("--PID--") on
    # syscalls it does not know are not errors.  tests/valgrind.supp: its
# model of bpf(), which the event backend calls through libbpf.
    bad=$(grep -l '^==[0-9]*==' "$logs"/vg.*.log 2>/dev/null)
    if [ $rc = 0 ] && [ -z "$bad" ]; then
        pass=$((pass + 1)); echo "ok   valgrind/$name"
    else
        fail=$((fail + 1)); echo "FAIL valgrind/$name"
        printf '%s\n' "$out" | tail -n 10 | sed 's/^/     | /'
        for f in $bad; do sed 's/^/     | /' "$f" | head -n 40; done
    fi
done
echo
echo "$pass passed, $fail failed (under valgrind)"
[ "$fail" -eq 0 ]
