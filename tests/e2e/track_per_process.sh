# SPDX-License-Identifier: MIT
# --per-process on real processes: a parent and two children with known PIDs,
# names, memory and CPU time (tests/workloads/proc_family.c).  Each row's
# PID, parent and command; each process's RSS reaching its known size; CPU
# seconds in the report within honest bounds; the same rows in CSV (sibling
# file) and SQLite (table processes); the report's top processes; the main
# table's layout unchanged.  GPU columns: track_per_gpu.sh.
. "$(dirname "$0")/_lib.sh"
MIB=1048576
P_MIB=20 A_MIB=120 A_MS=1000 B_MIB=60 B_MS=500

# rows FILE PID: the number of rows of process PID so far (CSV or SQLite).
rows() {
    case $1 in
    *.csv) awk -F, -v p="$2" 'NR > 1 && $2 == p' "$1" | wc -l ;;
    *) sqlite3 -cmd '.timeout 5000' "$1" "SELECT count(*) FROM processes WHERE pid = $2" 2>/dev/null || echo 0 ;;
    esac
}

# has_table FILE: the SQLite file has its processes table.
has_table() { [ "$(sqlite3 -cmd '.timeout 5000' "$1" "SELECT count(*) FROM sqlite_master WHERE name = 'processes'" 2>/dev/null)" = 1 ]; }

# has_rows FILE PID N: process PID has at least N rows.
has_rows() { [ "$(rows "$1" "$2")" -ge "$3" ]; }

# run_family TRACKING_FILE PROCESSES_FILE ARGS...: runs the workload under
# gpu-tracker; each child is released once two samples have seen it after it
# finished its work, so its rows hold its whole memory and CPU time
# (PROCESSES_FILE "-": no rows written, released at once).
run_family() {
    local tf=$1 pf=$2
    shift 2
    rm -f pf_*.pid pf_*.done release
    "$GT_BIN" --st=0.05 --ru=bytes --tf="$tf" "$@" -- "$W/proc_family" \
        $P_MIB $A_MIB $A_MS $B_MIB $B_MS >out.txt 2>err.txt &
    GTPID=$!
    wait_for test -s pf_parent.pid
    PARENT=$(cat pf_parent.pid) A=$(cat pf_a.pid) B=$(cat pf_b.pid)
    for c in a b; do
        [ "$pf" != - ] || break # no rows to wait for: released at once
        wait_for test -e pf_$c.done
        local pid n0
        pid=$(cat pf_$c.pid)
        n0=$(rows "$pf" "$pid")
        wait_for has_rows "$pf" "$pid" $((n0 + 2))
    done
    touch release
    wait $GTPID || fail "gpu-tracker exit $?: $(cat err.txt)"
}

# check_rows CSV: the rows of the three processes (a CSV with a header).
check_rows() {
    local f=$1
    [ "$(head -n 1 "$f")" = "timestamp,pid,ppid,command,cpu_percent,total_rss,private_rss,shared_rss,ram_percent,n_threads,disk_read_bytes,disk_write_bytes" ] ||
        fail "$f header: $(head -n 1 "$f")"
    awk -F, -v gt="$GTPID" -v p="$PARENT" -v a="$A" -v b="$B" '
        NR == 1 { next }
        $2 == p { want_pp = gt; want_c = "proc_family" }
        $2 == a { want_pp = p; want_c = "pf_child_a" }
        $2 == b { want_pp = p; want_c = "pf_child_b" }
        $2 != p && $2 != a && $2 != b { print "row of an unknown process: " $0; bad = 1; next }
        # A child is named by prctl just after fork: a sample may see it
        # before that, under the name of its parent.
        $2 != p && $4 == "proc_family" && !named[$2] { $4 = want_c }
        $4 == want_c { named[$2] = 1 }
        $3 != want_pp || $4 != want_c { print "wrong parent or command: " $0; bad = 1 }
        # one thread each; none once a zombie (its memory gone), as the
        # main table counts it
        $10 != 1 && !($10 == 0 && $6 == 0) { print "threads: " $0; bad = 1 }
        # private + shared = total, and the percent of the machine RAM
        $6 != "" && ($6 - $7 - $8 > 1e-6 || $7 + $8 - $6 > 1e-6) { print "parts: " $0; bad = 1 }
        END { if (!named[a] || !named[b]) { print "a child never named"; bad = 1 }; exit bad }' "$f" ||
        fail "$f rows"
    local cap
    cap=$(sed -n 2p t.csv | cut -d, -f4)
    awk -F, -v cap="$cap" 'NR > 1 && $6 != "" { d = $9 - $6 / cap * 100; if (d < 0) d = -d; if (d > 1e-9) { print; exit 1 } }' "$f" ||
        fail "$f: ram_percent is not total_rss over the capacity $cap"
    for c in parent:$PARENT:$P_MIB a:$A:$A_MIB b:$B:$B_MIB; do
        local pid=${c#*:} mib=${c##*:}
        pid=${pid%:*}
        local n=$((mib * MIB))
        # Binary, libc and stack come on top of the touched memory.
        within "$(awk -F, -v p="$pid" 'NR > 1 && $2 == p && $6 > m { m = $6 } END { print m + 0 }' "$f")" \
            $n $((n + 6 * MIB)) "$f: largest total RSS of ${c%%:*}"
        within "$(awk -F, -v p="$pid" 'NR > 1 && $2 == p && $7 > m { m = $7 } END { print m + 0 }' "$f")" \
            $((n * 98 / 100)) $((n + 6 * MIB)) "$f: largest private RSS of ${c%%:*}"
        # No CPU figure where it was first seen: no interval yet.
        [ -z "$(awk -F, -v p="$pid" 'NR > 1 && $2 == p { print $5; exit }' "$f")" ] ||
            fail "$f: first row of ${c%%:*} has a CPU percent"
    done
}

# check_cpu REPORT.json CSV: the report's CPU seconds of each process, and
# the CSV's percents integrated over its rows, against what each used.
check_cpu() {
    local r=$1 f=$2 k pid
    [ "$(jget "$r" '.top_processes.by_cpu_seconds | keys | length')" = 3 ] || fail "three processes expected"
    [ "$(jget "$r" '.top_processes.by_cpu_seconds."1".pid')" = "$A" ] || fail "A has the most CPU seconds"
    [ "$(jget "$r" '.top_processes.by_cpu_seconds."2".pid')" = "$B" ] || fail "B is second"
    [ "$(jget "$r" '.top_processes.by_cpu_seconds."3".pid')" = "$PARENT" ] || fail "the parent is last"
    [ "$(jget "$r" '.top_processes.by_cpu_seconds."1".command')" = pf_child_a ] || fail "command of A"
    # Each child's CPU clock stops its work at MS; touching its memory and
    # starting cost it a little more (a few page faults per MiB).
    within "$(jget "$r" '.top_processes.by_cpu_seconds."1".cpu_seconds')" 1.0 1.5 "CPU seconds of A"
    within "$(jget "$r" '.top_processes.by_cpu_seconds."2".cpu_seconds')" 0.5 1.0 "CPU seconds of B"
    within "$(jget "$r" '.top_processes.by_cpu_seconds."3".cpu_seconds')" 0 0.3 "CPU seconds of the parent"
    for k in 1 2; do
        pid=$(jget "$r" ".top_processes.by_cpu_seconds.\"$k\".pid")
        local secs integral
        secs=$(jget "$r" ".top_processes.by_cpu_seconds.\"$k\".cpu_seconds")
        # percent x interval, summed: the CPU time after the first row, so
        # at most the total and at least most of it (first seen early).
        integral=$(awk -F, -v p="$pid" 'NR > 1 && $2 == p { if (t != "" && $5 != "") s += $5 / 100 * ($1 - t); t = $1 } END { print s + 0 }' "$f")
        within "$integral" "$(awk -v s="$secs" 'BEGIN { print s * 0.5 }')" \
            "$(awk -v s="$secs" 'BEGIN { print s + 0.001 }')" "$f: CPU percents of PID $pid integrated"
    done
    # By peak RAM: A (120 MiB), B (60), the parent (20); the peaks are the
    # rows' largest totals.
    for k in 1:$A 2:$B 3:$PARENT; do
        pid=${k#*:}
        [ "$(jget "$r" ".top_processes.by_peak_ram.\"${k%%:*}\".pid")" = "$pid" ] || fail "rank ${k%%:*} by peak RAM"
        local peak
        peak=$(awk -F, -v p="$pid" 'NR > 1 && $2 == p && $6 > m { m = $6 } END { printf "%.1f", m }' "$f")
        within "$(jget "$r" ".top_processes.by_peak_ram.\"${k%%:*}\".peak_rss")" "$peak" "$peak" "peak RSS of $pid"
    done
}

# CSV: the sibling file, its rows, the JSON report.
run_family t.csv t.processes.csv --per-process -f json
[ -s t.processes.csv ] || fail "no t.processes.csv"
json_report out.txt >r.json
check_rows t.processes.csv
check_cpu r.json t.processes.csv
[ "$(jget r.json '.top_processes.unit')" = bytes ] || fail "unit of the top processes"

# SQLite: table processes in the tracking file itself, the text report.
# At 0.5 s between samples a child has used CPU time before a sample first
# sees it: that time is its own too (it started after tracking began).
run_family t.sqlite t.sqlite --per-process --st=0.5
sqlite3 -header -csv t.sqlite 'SELECT * FROM processes' | tr -d '\r' >sq.csv
check_rows sq.csv
[ "$(sqlite3 t.sqlite "SELECT typeof(cpu_percent) FROM processes WHERE pid = $A ORDER BY timestamp LIMIT 1")" = null ] ||
    fail "a CPU percent not measured is not NULL"
grep -q '^Top processes:$' out.txt || fail "no top processes in the text report"
grep -A 4 '^   By peak RAM:$' out.txt | grep -q "^         Command: pf_child_a$" || fail "text: A first by peak RAM"
within "$(sed -n '/^   By CPU seconds:$/,$p' out.txt | grep -m 1 '^         CPU seconds:' | sed 's/.*: //')" 1.0 1.5 \
    "text: CPU seconds of A"

# The main table is the same without the option: headers, static row
# layout, data rows of as many columns; the SQLite schema of both tables.
run_family plain.csv -
for f in plain.csv; do
    [ "$(sed -n 1p $f)" = "$(sed -n 1p t.csv)" ] && [ "$(sed -n 3p $f)" = "$(sed -n 3p t.csv)" ] ||
        fail "main table headers differ with --per-process"
done
[ ! -e plain.processes.csv ] || fail "a processes file without --per-process"
[ "$(sed -n 3p t.csv)" = "$(columns)" ] || fail "main table's header with --per-process: $(sed -n 3p t.csv)"
awk -F, -v n="$(ncolumns)" 'NR > 2 && NF != n { exit 1 }' t.csv || fail "a main-table row of t.csv without $(ncolumns) columns"
"$GT_BIN" --st=0.05 --tf=plain.sqlite --disable-logs -- true >/dev/null
[ "$(sqlite3 t.sqlite '.schema data' '.schema static_data')" = "$(sqlite3 plain.sqlite '.schema data' '.schema static_data')" ] ||
    fail "main tables' schema differs with --per-process"
[ "$(sqlite3 plain.sqlite "SELECT count(*) FROM sqlite_master WHERE name = 'processes'")" = 0 ] ||
    fail "a processes table without --per-process"
"$GT_BIN" --st=0.05 -f json --disable-logs -- true >o.txt
json_report o.txt >plain.json
[ "$(jget plain.json 'has("top_processes")')" = false ] || fail "top processes without --per-process"

# Without a tracking file: the report's section alone.
"$GT_BIN" --st=0.05 -f json --per-process --disable-logs -- "$W/touch_mem" 30 0.3 >o.txt
json_report o.txt >solo.json
[ "$(jget solo.json '.top_processes.by_peak_ram."1".command')" = touch_mem ] || fail "top process without --tf"

# A sibling file already there is refused like the tracking file, and the
# tracking file just created is not left behind.
: >x.processes.csv
set +e
"$GT_BIN" --tf=x.csv --per-process -- true >o.txt 2>e.txt
rc=$?
set -e
[ $rc = 2 ] || fail "existing sibling: exit $rc"
grep -q "x.processes.csv' already exists" e.txt || fail "existing sibling: $(cat e.txt)"
[ ! -e x.csv ] || fail "x.csv left behind"
"$GT_BIN" --tf=x.csv --per-process --overwrite --disable-logs -- true >/dev/null || fail "--overwrite"
[ "$(head -c 10 x.processes.csv)" = timestamp, ] || fail "sibling not replaced"
# tconfig key, like the option.
printf '{"per_process": true, "tracking_file": "c.csv"}\n' >c.json
"$GT_BIN" --tconfig=c.json --disable-logs -- true >/dev/null
[ -s c.processes.csv ] || fail "per_process in --tconfig"

# Another program holding the SQLite file's write lock for a while delays
# the rows but loses none: every sample of table data has its rows in
# table processes (the main process is in every sample, a zombie in the
# last), none twice.
# The command runs until the lock is released, however long the waits
# before took.
"$GT_BIN" --st=0.05 --per-process --tf=l.sqlite --disable-logs -- "$W/touch_mem" 10 file=l.release >/dev/null &
gt=$!
wait_for test -s l.sqlite
wait_for has_table l.sqlite
sqlite3 -cmd '.timeout 20000' l.sqlite 'BEGIN IMMEDIATE;' '.shell sleep 1' 'COMMIT;'
touch l.release
wait $gt || fail "gpu-tracker with a locked file: exit $?"
samples=$(sqlite3 l.sqlite 'SELECT count(*) FROM data')
[ "$(sqlite3 l.sqlite 'SELECT count(DISTINCT timestamp) FROM processes')" = "$samples" ] ||
    fail "samples with process rows: $(sqlite3 l.sqlite 'SELECT count(DISTINCT timestamp) FROM processes') of $samples"
[ "$(sqlite3 l.sqlite 'SELECT count(*) FROM (SELECT 1 FROM processes GROUP BY timestamp, pid HAVING count(*) > 1)')" = 0 ] ||
    fail "a process row written twice"
