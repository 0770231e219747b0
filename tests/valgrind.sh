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
# track_attach (they give the tracker a fixed time, which valgrind's
# slowdown exceeds on a loaded machine), and track_cpu, track_spike, track_memory,
# track_options, track_security (checks of figures or of option parsing,
# which the sanitizer pass and the fuzzers, with leak detection, cover), and
# the sub-track tests (reading and writing files only: the sanitizer pass
# with LeakSanitizer and the fuzzers cover them; `VALGRIND_TESTS=
# subtrack_compare tests/valgrind.sh` passes, in 35 s).
# VALGRIND_TESTS="track_options ..." picks others.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
SUBSET=${VALGRIND_TESTS:-"track_status track_faults track_tree track_orphan track_output"}
logs="$PWD/$BUILD/valgrind"
rm -rf "$logs"
mkdir -p "$logs"
chmod 1777 "$logs" # the fork-bomb test runs gpu-tracker as nobody
cat >"$logs/gpu-tracker" <<EOF
#!/bin/sh
exec valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect \
    --errors-for-leak-kinds=definite,indirect --log-file="$logs/vg.%p.log" "$PWD/$BUILD/gpu-tracker" "\$@"
EOF
chmod 755 "$logs/gpu-tracker"
export GT_BUILD="$PWD/$BUILD" GT_BIN="$logs/gpu-tracker" GT_REF="$PWD/tests/fixtures/reference"
pass=0 fail=0
for name in $SUBSET; do
    out=$(bash "tests/e2e/$name.sh" 2>&1)
    rc=$?
    # valgrind's reports are lines "==PID== ..."; its notes ("--PID--") on
    # syscalls it does not know are not errors.
    bad=$(grep -l '^==[0-9]*==' "$logs"/vg.*.log 2>/dev/null)
    if [ $rc = 0 ] && [ -z "$bad" ]; then
        pass=$((pass + 1)); echo "ok   valgrind/$name"
    else
        fail=$((fail + 1)); echo "FAIL valgrind/$name"
        printf '%s\n' "$out" | tail -n 10 | sed 's/^/     | /'
        for f in $bad; do sed 's/^/     | /' "$f" | head -n 40; done
    fi
    rm -f "$logs"/vg.*.log
done
echo
echo "$pass passed, $fail failed (under valgrind)"
[ "$fail" -eq 0 ]
