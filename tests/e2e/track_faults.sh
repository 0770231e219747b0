# SPDX-License-Identifier: MIT
# Faults while tracking.  In each case the command runs to its own end, the
# message names what went wrong, every sample taken before the fault is in
# the tracking file (complete rows only), and the exit status tells: the
# command's own, or 1 when the command succeeded but samples or the report
# were lost.
. "$(dirname "$0")/_lib.sh"
set -m # job control: background jobs keep SIGINT

# csv_ok FILE MIN: every row of a CSV tracking file has as many cells as
# its header, and there are at least MIN samples.
csv_ok() {
    awk -F, 'NR == 1 || NR == 3 { n = NF } NF != n { exit 1 }' "$1" || fail "$1 has a torn row"
    [ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ] || fail "$1 does not end with a full line"
    local rows=$(($(wc -l <"$1") - 3))
    [ $rows -ge "$2" ] || fail "$1 has $rows samples, expected at least $2"
}

# Sample rows of a CSV or SQLite tracking file being written.
rows() {
    case $1 in
    *.csv) echo $(($(wc -l <"$1") - 3)) ;;
    *) [ -e "$1" ] && sqlite3 "$1" "select count(*) from data" ;; # never create it
    esac
}
rows_at_least() { [ "$(rows "$1")" -ge "$2" ]; }
# A command that waits for file go, then touches done.marker.
waiting='until [ -e go ]; do sleep 0.05; done; touch done.marker'

# The report cannot be written (disk full): the command still ran, exit 1.
rc=0; "$GT_BIN" -o /dev/full -- touch ran.marker >out.txt 2>err.txt || rc=$?
[ $rc = 1 ] || fail "-o /dev/full: exit $rc, expected 1"
[ -e ran.marker ] || fail "-o /dev/full: the command did not run"
grep -q "cannot write the report to '/dev/full': No space left on device" err.txt ||
    fail "-o /dev/full: message '$(cat err.txt)'"
grep -q "status code: 0" out.txt || fail "-o /dev/full: status line"
# The same on stdout: the status line fails first, so the report's write
# finds the stream failed with no system error of its own to name, and says
# the status's text (not strerror(0), "Success").
rc=0; "$GT_BIN" -- true >/dev/full 2>err.txt || rc=$?
[ $rc = 1 ] || fail "stdout /dev/full: exit $rc, expected 1"
grep -Eq "^gpu-tracker: cannot write the report to 'stdout': (No space left on device|file read or write error)$" \
    err.txt || fail "stdout /dev/full: message '$(cat err.txt)'"
rm -f ran.marker

# Paths that cannot be written: refused before anything runs, exit 2.
for opt in --output=/proc/gt-report.txt --tf=/proc/gt-samples.csv --tf=/proc/gt-samples.sqlite; do
    rc=0; "$GT_BIN" "$opt" -- touch ran.marker >out.txt 2>err.txt || rc=$?
    [ $rc = 2 ] || fail "$opt: exit $rc, expected 2"
    [ ! -e ran.marker ] || fail "$opt: the command ran"
    grep -q "'${opt#*=}'" err.txt || fail "$opt: message '$(cat err.txt)' does not name the file"
done

# The tracking file's disk fills up mid-run (the file-size limit, ulimit -f,
# fails writes with EFBIG): tracking goes on, the file keeps every complete
# row, exit 1.  The command's own failure status still wins over ours.
# The commands go on until the failure has been reported.
wait_failure='until grep -q "cannot write tracking file" err.txt; do sleep 0.05; done; sleep 0.1'
for want in 0 3; do
    rc=0
    (ulimit -f 16; exec "$GT_BIN" --st=0.005 --tf=full.csv --overwrite -- sh -c "$wait_failure; touch ran.marker; exit $want") \
        >out.txt 2>err.txt || rc=$?
    [ $rc = $((want ? want : 1)) ] || fail "full disk, command exit $want: exit $rc"
    [ -e ran.marker ] || fail "full disk: the command did not finish"
    grep -q "status code: $want" out.txt || fail "full disk: status line"
    grep -q "^Compute time:" out.txt || fail "full disk: report"
    grep -q "cannot write tracking file 'full.csv': File too large" err.txt || fail "full disk: message '$(cat err.txt)'"
    [ "$(wc -c <full.csv)" -le 16384 ] || fail "full disk: file past the limit"
    csv_ok full.csv 20
    rm -f ran.marker
done
rc=0
(ulimit -f 48; exec "$GT_BIN" --st=0.002 --tf=full.sqlite -- sh -c "$wait_failure; touch ran.marker") >out.txt 2>err.txt || rc=$?
[ $rc = 1 ] || fail "full disk, SQLite: exit $rc"
[ -e ran.marker ] || fail "full disk, SQLite: the command did not finish"
grep -q "cannot write tracking file 'full.sqlite': .*File too large" err.txt || fail "full disk, SQLite: '$(cat err.txt)'"
n=$(sqlite3 full.sqlite "select count(*) from data where timestamp > 0")
[ "$n" -ge 3 ] || fail "full disk, SQLite: $n samples kept"

# The tracking file is deleted mid-run: re-created at the end with every
# sample, from the file still open; nothing was lost, so the exit is 0.
for f in gone.csv gone.sqlite; do
    rm -f go
    "$GT_BIN" --st=0.01 --tf=$f -- sh -c "$waiting" >out.txt 2>err.txt &
    tracker=$!
    wait_for rows_at_least $f 20
    rm $f
    deleted=$(date +%s.%N)
    sleep 0.3
    touch go
    rc=0; wait $tracker || rc=$?
    [ $rc = 0 ] || fail "$f deleted: exit $rc"
    grep -q "tracking file '$f' was deleted while tracking; re-created with every sample" err.txt ||
        fail "$f deleted: message '$(cat err.txt)'"
    [ -f $f ] || fail "$f was not re-created"
    [ "$(rows $f)" -ge 21 ] || fail "$f: $(rows $f) samples in the re-created file"
    case $f in
    *.csv) csv_ok $f 21; first=$(sed -n 4p $f | cut -d, -f22); last=$(tail -n 1 $f | cut -d, -f22) ;;
    *) first=$(sqlite3 $f "select min(timestamp) from data"); last=$(sqlite3 $f "select max(timestamp) from data") ;;
    esac
    # from before the first 20 rows to after the deletion
    awk -v a="$first" -v b="$last" -v d="$deleted" 'BEGIN { exit !(a < d && b > d) }' ||
        fail "$f: samples from $first to $last do not span the deletion at $deleted"
done
# ... but not over a file that took its name meanwhile.
rc=0; "$GT_BIN" --st=0.01 --tf=taken.csv -- sh -c 'rm taken.csv; echo other >taken.csv' >out.txt 2>err.txt || rc=$?
[ $rc = 1 ] || fail "deleted and name taken: exit $rc"
grep -q "tracking file 'taken.csv' was deleted while tracking and cannot be re-created" err.txt ||
    fail "deleted and name taken: '$(cat err.txt)'"
[ "$(cat taken.csv)" = other ] || fail "the file that took the name was overwritten"

# The command is killed by SIGKILL from outside: its status is reported.
# (The command holds its memory until killed, however long the samples take.)
"$GT_BIN" --st=0.01 --tf=k.csv -- "$W/touch_mem" 5 file=never >out.txt 2>err.txt &
tracker=$!
wait_for rows_at_least k.csv 10
child=$(cat /proc/$tracker/task/$tracker/children)
[ -n "$child" ] || fail "no child of gpu-tracker to kill"
kill -KILL $child
rc=0; wait $tracker || rc=$?
[ $rc = 137 ] || fail "command SIGKILLed: exit $rc, expected 137"
grep -q "status code: -9" out.txt || fail "command SIGKILLed: status line"
grep -q "^Compute time:" out.txt || fail "command SIGKILLed: report"
csv_ok k.csv 10

# gpu-tracker gets SIGHUP (SIGINT, SIGTERM: track_signals.sh): forwarded.
"$GT_BIN" --st=0.01 --tf=h.csv -- "$W/touch_mem" 5 file=never >out.txt 2>err.txt &
tracker=$!
wait_for rows_at_least h.csv 10
kill -HUP $tracker
rc=0; wait $tracker || rc=$?
[ $rc = 129 ] || fail "SIGHUP: exit $rc, expected 129"
grep -q "status code: -1$" out.txt || fail "SIGHUP: status line"
csv_ok h.csv 10

# gpu-tracker itself is SIGKILLed: the command runs on to its end, and every
# sample written so far stays readable (CSV rows complete; SQLite's log is
# replayed by the next reader).
for f in dead.csv dead.sqlite; do
    rm -f go done.marker
    "$GT_BIN" --st=0.01 --tf=$f -- sh -c "$waiting" >/dev/null 2>&1 &
    tracker=$!
    wait_for rows_at_least $f 5
    kill -KILL $tracker
    wait $tracker 2>/dev/null || true
    touch go
    wait_for test -e done.marker
    case $f in
    *.csv) csv_ok $f 5 ;;
    *) n=$(sqlite3 $f "select count(*) from data"); [ "$n" -ge 5 ] || fail "$f: $n samples readable" ;;
    esac
done

# /proc files of tracked processes vanish between open and read (an
# LD_PRELOAD shim fails one read in 3 with ESRCH, as for a process that
# exited after the open): no failure, no inflated private memory, every
# child still found.  A sample whose reads of all four children succeed is
# rare (about one in 70), so the children hold their memory until the
# tracking file has such a row (all four children's 5 MiB: 20.97 MB) and
# 100 rows in all, however few samples a loaded machine allows per second.
shim="$GT_BUILD/fakes/procvanish.so"
[ -f "$shim" ] || fail "$shim not built"
all_four_seen() {
    awk -F, 'FNR == 3 { for (i = 1; i <= NF; i++) c[$i] = i }
        FNR > 3 { n++; if ($c["descendants_ram"] >= 4 * 5 * 1.048576) seen = 1 }
        END { exit !(seen && n >= 100) }' vanish.csv
}
rm -f release
LD_PRELOAD="$shim" GT_VANISH_LOG="$PWD/injected.txt" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
    "$GT_BIN" --st=0.01 --ru=megabytes -f json -o vanish.json --tf=vanish.csv -- "$W/tree" 4 file=release 5 >out.txt 2>err.txt &
tracker=$!
wait_for all_four_seen
touch release
rc=0; wait $tracker || rc=$?
[ $rc = 0 ] || fail "vanishing /proc files: exit $rc: $(cat err.txt)"
[ "$(cat injected.txt)" -ge 50 ] || fail "the shim injected only $(cat injected.txt) failures"
within "$(jget vanish.json .max_ram.descendants.private_rss)" 20.9 23 "vanishing /proc: descendants' private RSS (4 x 5 MiB)"
[ "$(jget vanish.json .cpu_utilization.descendants_n_threads)" = 4 ] || fail "vanishing /proc: descendants' threads"
csv_ok vanish.csv 30
awk -F, 'NR > 3 { for (i = 1; i <= NF; i++) if ($i != "" && $i + 0 < 0) exit 1 }' vanish.csv || fail "vanishing /proc: a negative figure"

# Thousands of processes, bounded by the process limit (ulimit -u, enforced
# for non-root users only: root runs the test as a user ID of its own, with
# no processes but the bomb's, so that tests running beside it as nobody
# neither count towards its limit nor fail to fork).  Each round of the
# bomb forks children that live until released, so the limit bites however
# fast the machine forks.
fork_bomb() { # gpu-tracker, churn, command prefix...
    local gt=$1 churn=$2 lim=100 rc=0
    shift 2
    [ $# -gt 0 ] || lim=$(($(ps -u "$(id -u)" --no-headers | wc -l) + 100))
    rm -f release
    # The last round holds its children at the limit until the tracker has
    # written 20 samples (then release): as many samples as it takes, however
    # slow the tracker (valgrind) or fast the forks.
    "$@" bash -c "ulimit -u $lim; exec \"\$0\" --st=0.005 -f json -o bomb.json --tf=bomb.csv -- \"\$1\" 120 500 bomb release" \
        "$gt" "$churn" >out.txt 2>err.txt &
    local tracker=$!
    # Or until the tracker has ended: its status and message say why.
    bomb_ready() { rows_at_least bomb.csv 20 || ! running "$tracker"; }
    wait_for bomb_ready
    touch release
    wait $tracker || rc=$?
    [ $rc = 0 ] || fail "fork bomb: exit $rc: $(cat err.txt)"
    read -r _ created _ refused < <(grep "^created" out.txt) || fail "fork bomb: no count: $(cat out.txt)"
    [ "$created" -ge 500 ] || fail "fork bomb: only $created processes created"
    [ "$refused" -ge 1 ] || fail "fork bomb: the process limit never bit ($created created)"
    [ "$(jget bomb.json .cpu_utilization.descendants_n_threads)" -ge 20 ] || fail "fork bomb: descendants not seen"
    csv_ok bomb.csv 20
}
if [ "$(id -u)" != 0 ]; then
    fork_bomb "$GT_BIN" "$W/churn"
elif gt=$(nobody_path "$GT_BIN") && churn=$(nobody_path "$W/churn"); then
    chmod 777 "$TMP"
    uid=$((200000 + $$ % 100000)) # no account: a user that runs nothing else
    fork_bomb "$gt" "$churn" setpriv --reuid=$uid --regid=$uid --clear-groups
else
    skip_part "the fork bomb under the process limit" "it runs as an unprivileged user, who cannot run this checkout's binaries"
fi
