#!/bin/bash
# SPDX-License-Identifier: MIT
# Another program holds an SQLite tracking file's write lock while
# gpu-tracker writes the main table and both side tables (--per-process,
# --per-gpu), three connections: a sample waits GT_LOCKWAIT_SAMPLE_MS
# (250 ms) in all, not per connection, and the close waits 10 s in all,
# not per connection; still locked then, the message names every table
# that lost samples, with exit 1.  Released in time, every sample is
# written.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/_lib.sh"
. "$HERE/_gpu.sh"
command -v python3 >/dev/null || skip "no python3 to hold the lock"
# One GPU (the fake NVML), so that table gpus gets rows too.
cat >nvml.json <<'JSON'
{"devices": [{"uuid": "GPU-11111111-aaaa", "total": 17179869184, "samples": [{"used": 5000000000, "util": 30}]}]}
JSON

until_ok() {
    local i
    for i in $(seq 2400); do "$@" 2>/dev/null && return 0; sleep 0.05; done
    fail "timed out waiting for: $*"
}
# has_rows FILE: FILE exists (sqlite3 would create it) and has 3 process rows.
has_rows() { [ -e "$1" ] && [ "$(sqlite3 -cmd '.timeout 5000' "$1" "SELECT count(*) FROM processes")" -ge 3 ]; }
now() { date +%s.%N; }

# hold FILE: holds FILE's write lock until the file 'release' exists,
# then commits; 'locked' says it is held.
hold() {
    python3 -c '
import os, sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
c.execute("BEGIN IMMEDIATE")
open("locked", "w").close()
while not os.path.exists("release"):
    time.sleep(0.01)
c.execute("COMMIT")' "$1"
}

# Held through the end: the command sleeps 2 s under the lock, then exits;
# gpu-tracker waits 10 s in all for the lock, then says what was lost.
rm -f locked release
"$GT_BIN" --quiet --st=0.05 --tf=l.sqlite --per-process --per-gpu -- \
    sh -c 'until [ -e locked ]; do sleep 0.01; done; sleep 2; touch cmd.done' >out.txt 2>err.txt &
tracker=$!
until_ok has_rows l.sqlite
hold l.sqlite &
holder=$!
until_ok test -e locked
until_ok test -e cmd.done
done_at=$(now)
rc=0; wait $tracker || rc=$?
ended=$(now)
touch release
wait $holder
[ $rc = 1 ] || fail "locked at exit: exit $rc: $(cat err.txt)"
for t in data processes gpus; do
    grep -q "to table '$t' of tracking file 'l.sqlite'" err.txt || fail "locked at exit: table $t not named: $(cat err.txt)"
done
# One close wait of 10 s for the three connections, however slow the
# machine: the wait is a deadline, never less.  A connection that waited
# its own 10 s would add 10 s (30 s if each did), so the bound lies halfway
# to the first such wait: beside two CPU hogs the wait took 10.3 s.
wait_s=$(awk -v a="$done_at" -v b="$ended" 'BEGIN { print b - a }')
within "$wait_s" 9.9 15 "the close's wait for the lock (s)"
# Held for 4 s mid-run, then released: every sample is written, and the
# samples taken under the lock came at 250 ms + --st apart at most (the
# waits of three connections in one).
rm -f locked release cmd.done
"$GT_BIN" --quiet --st=0.05 --tf=m.sqlite --per-process --per-gpu -- \
    sh -c 'until [ -e release ]; do sleep 0.01; done; sleep 0.5' >out.txt 2>err.txt &
tracker=$!
until_ok has_rows m.sqlite
hold m.sqlite &
holder=$!
until_ok test -e locked
locked_at=$(now)
sleep 4
released_at=$(now)
touch release
wait $holder
rc=0; wait $tracker || rc=$?
[ $rc = 0 ] || fail "locked mid-run: exit $rc: $(cat err.txt)"
n=$(sqlite3 m.sqlite "SELECT count(*) FROM data WHERE timestamp > $locked_at + 0.3 AND timestamp < $released_at - 0.3")
span=$(awk -v a="$locked_at" -v b="$released_at" 'BEGIN { print b - a - 0.6 }')
# A sample every 0.25 s + 0.05 s (0.8 s if each connection waited its
# own): at least 5/8 as many as that, more than 0.8 s apart would give.
min=$(awk -v s="$span" 'BEGIN { printf "%d", s / 0.3 / 1.6 }')
[ "$n" -ge "$min" ] || fail "locked mid-run: $n samples in $span s under the lock, expected at least $min"
p=$(sqlite3 m.sqlite "SELECT count(DISTINCT timestamp) FROM processes")
d=$(sqlite3 m.sqlite "SELECT count(*) FROM data")
[ "$p" = "$d" ] || fail "locked mid-run: rows of $p samples in table processes, $d samples in data"
echo ok
