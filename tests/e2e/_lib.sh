# SPDX-License-Identifier: MIT
# Helpers for end-to-end tests of the real gpu-tracker binary.
# Sourced by tests/e2e/*.sh; tests/run.sh exports GT_BIN, GT_BUILD, GT_REF.
set -eu
: "${GT_BIN:?}" "${GT_BUILD:?}"
W="$GT_BUILD/workloads"
TMP=$(mktemp -d)
# A test that fails while a tracker runs in the background stops it (the
# tracker passes the signal on to its command), so nothing it started waits
# on for an event that will not come.
cleanup() {
    local j
    for j in $(jobs -p); do kill "$j" 2>/dev/null || true; done
    rm -rf "$TMP"
}
trap cleanup EXIT
cd "$TMP"

fail() { echo "FAIL: $*" >&2; exit 1; }

# columns [--energy] [NAME...]: the tracking file's timepoint columns as the
# metric table lays them out (tests/tools/columns.c), comma-separated as a
# CSV header holds them, with the energy columns where --energy; with NAMEs,
# each one's place (awk's $N) instead.  Tests take a count or a place from
# it, so that a new row of the table changes none of them; the power
# columns, which the table does not lay out, a test appends itself.
columns() { "$GT_BUILD/tests/tools/columns" "$@" || fail "columns $*"; }
# ncolumns [--energy]: how many columns that is.
ncolumns() { columns "$@" | awk -F, '{ print NF }'; }

# jget FILE FILTER: one value from a JSON report.
jget() { jq -er "$2" "$1"; }

# within VALUE LOW HIGH: LOW <= VALUE <= HIGH (floating point).
within() {
    awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }' ||
        fail "$4: $1 not in [$2, $3]"
}

# wait_for COND...: polls until the command succeeds.  Tests wait for the
# event they need (a row in the tracking file, a file a workload writes),
# never for a guessed time; the deadline only says that something is stuck,
# so it is far above what valgrind on a loaded machine needs
# (GT_WAIT_LIMIT seconds, default 300).
wait_for() {
    local end=$((SECONDS + ${GT_WAIT_LIMIT:-300}))
    until "$@" 2>/dev/null; do
        [ $SECONDS -lt $end ] || fail "waited ${GT_WAIT_LIMIT:-300} s for: $*$(wait_note)"
        sleep 0.05
    done
}

# running PID: the process runs (a child that ended is a zombie until the
# shell waits for it, which kill -0 cannot tell).
running() { local st; st=$(ps -o stat= -p "$1") && [ "${st#Z}" = "$st" ]; }

# lines_at_least FILE N: FILE exists and has N lines or more (a tracking
# CSV: its three header lines, then one per sample).
lines_at_least() { [ -f "$1" ] && [ "$(wc -l <"$1")" -ge "$2" ]; }

# wait_metrics_address: waits until gpu-tracker has said on err.txt where
# its metrics endpoint listens (--metrics=127.0.0.1:0), and sets addr.
metrics_address_said() {
    addr=$(sed -n 's|^gpu-tracker: metrics at http://\(127\.0\.0\.1:[0-9]*\)/metrics$|\1|p' err.txt)
    [ -n "$addr" ]
}
wait_metrics_address() { wait_for metrics_address_said; }

# samples_waiter: writes wait_samples.sh, which a tracked command runs as
# `sh wait_samples.sh FILE N` to wait until its tracking file FILE (CSV or
# SQLite) has N more samples than when it began: the command's next step
# then comes after N - 1 samples at least, however slowly a loaded machine
# samples.  SQLite is read with a lock timeout, so the reader never makes
# the tracker's write fail.
samples_waiter() {
    cat >"$TMP/wait_samples.sh" <<'SH'
count() {
    case $1 in
    *.csv) wc -l <"$1" ;;
    *) sqlite3 -cmd '.timeout 5000' "$1" 'select count(*) from data' 2>/dev/null || echo 0 ;;
    esac
}
want=$(($(count "$1") + $2))
until [ "$(count "$1")" -ge $want ]; do sleep 0.01; done
SH
}

# What wait_for adds to its failure: gpu-tracker's messages, where the
# test keeps them in err.txt.
wait_note() { [ -s err.txt ] && printf '; gpu-tracker said: %s' "$(tail -n 5 err.txt)"; }

# json_report FILE: the report part of gpu-tracker's stdout (after the
# "Resource tracking complete" line).
json_report() { sed '1d' "$1"; }

# skip REASON: this test cannot run here; tests/run.sh counts it as skipped
# (exit status 77 with a "skipped:" line), never as passed.
skip() { echo "skipped: $*"; exit 77; }

# use_hooks: from here on GT_BIN is the test build's binary, whose test
# hooks read GT_SYSFS_ROOT, GT_FDINFO_PROC_ROOT, GT_PEAKS and
# GT_EVENTS_MAX_PROCS/SIMULATE (src/lib/util/test_hooks.h); the production
# binary ignores them.  GT_HOOKS_BIN names another (a wrapper under
# valgrind).
use_hooks() { GT_BIN=${GT_HOOKS_BIN:-$GT_BUILD/hooks/gpu-tracker}; }

# with_rapl: a fixture RAPL tree (one package domain, counter still) as
# GT_SYSFS_ROOT, for tests that count warnings: without RAPL the tracker
# says once that CPU energy is not measured, which depends on the machine.
# It runs the test build (use_hooks).
with_rapl() {
    use_hooks
    mkdir -p "$TMP/rapl-sys/class/powercap/intel-rapl:0"
    printf 'package-0\n' >"$TMP/rapl-sys/class/powercap/intel-rapl:0/name"
    printf '262143328850\n' >"$TMP/rapl-sys/class/powercap/intel-rapl:0/max_energy_range_uj"
    printf '1000000\n' >"$TMP/rapl-sys/class/powercap/intel-rapl:0/energy_uj"
    export GT_SYSFS_ROOT="$TMP/rapl-sys"
}

# nobody_path FILE: a path to FILE that user nobody (65534) can run, on
# stdout: FILE itself when nobody can reach it, else a copy in $TMP.  A
# checkout that nobody cannot traverse (under /root, in a mktemp -d folder)
# must not fail the tests that drop to nobody; where no copy can help (a
# wrapper script naming the unreachable checkout, as under valgrind), it
# fails with the reason on stderr and the caller skips.
nobody_path() {
    local nb=(setpriv --reuid=65534 --regid=65534 --clear-groups)
    if "${nb[@]}" test -x "$1"; then
        echo "$1"
        return 0
    fi
    if [ "$(head -c 2 "$1")" = '#!' ]; then
        echo "user nobody cannot run '$1' (a script in a folder it cannot traverse)" >&2
        return 1
    fi
    mkdir -p "$TMP/nobody-bin"
    chmod 755 "$TMP" "$TMP/nobody-bin"
    cp "$1" "$TMP/nobody-bin/"
    local copy="$TMP/nobody-bin/${1##*/}"
    if ! "${nb[@]}" test -x "$copy"; then
        echo "user nobody cannot run '$1', nor a copy in '$TMP'" >&2
        return 1
    fi
    echo "$copy"
}

# skip_part WHAT REASON: says on stderr that a part of a test did not run,
# and why; the rest of the test goes on.
skip_part() { echo "SKIPPED: $1: $2" >&2; }

# rapl_zone ZONE NAME MAX COUNTER: a powercap zone of a fixture RAPL tree
# under $PC (in the tree GT_SYSFS_ROOT names), its counter in µJ.
rapl_zone() {
    mkdir -p "$PC/$1"
    printf '%s\n' "$2" >"$PC/$1/name"
    printf '%s\n' "$3" >"$PC/$1/max_energy_range_uj"
    printf '%s\n' "$4" >"$PC/$1/energy_uj"
}
