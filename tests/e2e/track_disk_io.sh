# SPDX-License-Identifier: MIT
# Disk I/O from /proc/PID/io against a workload that writes, fsyncs and
# reads back (O_DIRECT) known bytes in main, in a child that main reaps and
# in a child that stays: each figure equals the processes' own counters
# and at least the known bytes; the reaped child's bytes are in main's, so
# the tree's total never falls, even when a member is reaped; the rate
# adds back up to the total; the JSON report's Other metrics give the last
# sample's totals and the rate's mean over time, a /metrics scrape during
# the hold the counters the workload said; `gpu-tracker merge` of two
# runs of one node the sum of their counters; and counters that cannot
# be read (root's process tracked by nobody) are empty cells, never 0, and
# null in the report.
. "$(dirname "$0")/_lib.sh"
# read_bytes and write_bytes count storage I/O, which tmpfs does none of:
# the workload's files go where the checkout is if $TMP is tmpfs.
D="$TMP/io"
[ "$(stat -f -c %T "$TMP")" != tmpfs ] || D="$GT_BUILD/disk_io.$$"
[ "$(stat -f -c %T "${D%/*}")" != tmpfs ] || skip "no filesystem that writes to storage for the workload's files"
trap 'cleanup; rm -rf "$D"' EXIT
mkdir -p "$D"

MAIN=1024 REAPED=512 LIVE=256 # KiB each
# The workload says its counters into a FIFO, which adds to neither; its
# reader is no child of gpu-tracker's (a process substitution would be,
# and a member of the tree).
mkfifo said.fifo
cat said.fifo >out.txt &
reader=$!
"$GT_BIN" --st=0.02 --tf=t.csv --per-process --disable-logs -f json -o r.json \
    --metrics=127.0.0.1:0 -- "$W/disk_io" "$D" $MAIN $REAPED $LIVE "file=$TMP/release" \
    >said.fifo 2>err.txt &
gt=$!
said() { [ "$(grep -c '^io ' out.txt)" = 2 ]; } # live's and main's first
wait_for said
# Two more rows: the second taken wholly after both said their counters,
# which hold until the release.
n=$(wc -l <t.csv)
wait_for lines_at_least t.csv $((n + 2))
row=$((n + 2))
# A scrape now serves a sample taken wholly within the hold (a sample is
# published before its row is written).
wait_metrics_address
curl -sf "http://$addr/metrics" >scrape.txt || fail "no scrape"
touch "$TMP/release"
wait $gt || fail "gpu-tracker failed: $(cat err.txt)"
wait $reader
# io WHO: the counters a process of the workload said, "READ WRITE".
io() { grep "^io $1 " out.txt | cut -d' ' -f3-; }
read -r live_r live_w <<<"$(io live)"
read -r main_r main_w <<<"$(io main)"
read -r live_end_r live_end_w <<<"$(io live-end)"
read -r held_r held_w <<<"$(io main-held)"
read -r end_r end_w <<<"$(io main-end)"

# cell NAME ROW: the tracking file's cell (ROW: its line, "$" the last).
cell() {
    awk -F, -v name="$1" -v row="$2" 'NR == 3 { for (i = 1; i <= NF; i++) if ($i == name) c = i }
        (row == "$" || NR == row) && NR > 3 { v = $c } END { if (!c) exit 1; print v }' t.csv
}
# between NAME ROW LOW HIGH: the cell lies in [LOW, HIGH]: the counters
# the process said before the row and after it.
between() { within "$(cell "$1" "$2")" "$3" "$4" "$1 at line $2"; }
# Main's counters hold the child it reaped; the known bytes are a floor
# (write_bytes counts what the writes dirtied, O_DIRECT reads all they read).
[ "$main_w" -ge $(((MAIN + REAPED) * 1024)) ] || fail "main wrote $main_w, less than the workload's"
[ "$main_r" -ge $(((MAIN + REAPED) * 1024)) ] || fail "main read $main_r, less than the workload's"
[ "$live_w" -ge $((LIVE * 1024)) ] && [ "$live_r" -ge $((LIVE * 1024)) ] || fail "the live child: $live_r $live_w"
for d in read write; do
    eval "m=\$main_${d:0:1} h=\$held_${d:0:1} l=\$live_${d:0:1} le=\$live_end_${d:0:1} e=\$end_${d:0:1}"
    between main_disk_${d}_bytes $row "$m" "$h"
    between descendants_disk_${d}_bytes $row "$l" "$le"
    between combined_disk_${d}_bytes $row $((m + l)) $((h + le))
    # The live child, reaped by main at the end: its bytes moved into
    # main's, and the last sample (main a zombie) still holds them.
    between combined_disk_${d}_bytes '$' "$e" "$e"
    # Never a fall (the reaped child's bytes were in the tree before and
    # after its reaping), and the rates add back up to the total.
    awk -F, -v t="combined_disk_${d}_bytes" -v r="combined_disk_${d}_bytes_per_second" '
        NR == 3 { for (i = 1; i <= NF; i++) { if ($i == t) c = i; if ($i == r) q = i; if ($i == "timestamp") s = i } }
        NR > 3 {
            if ($c == "") { print "empty total at line " NR; exit 1 }
            if (NR == 4) first = $c
            else if ($c < last) { print "fell from " last " to " $c " at line " NR; exit 1 }
            else if ($q == "") { print "no rate at line " NR; exit 1 }
            else sum += $q * ($s - ts)
            last = $c; ts = $s
        }
        END { d = sum - (last - first); if (d < 0) d = -d; if (d > 1e-6 * (last + 1)) { print "rates add to " sum ", the total moved " last - first; exit 1 } }' t.csv ||
        fail "combined_disk_${d}_bytes over the rows"
done

# The scrape: each set's counters at a sample of the hold.
series() { sed -n "s/^gpu_tracker_disk_$1_bytes_total{set=\"$2\"} //p" scrape.txt; }
grep -qx '# TYPE gpu_tracker_disk_read_bytes_total counter' scrape.txt || fail "no disk family: $(cat scrape.txt)"
for d in read write; do
    eval "m=\$main_${d:0:1} h=\$held_${d:0:1} l=\$live_${d:0:1} le=\$live_end_${d:0:1}"
    within "$(series $d main)" "$m" "$h" "scraped main $d"
    within "$(series $d descendants)" "$l" "$le" "scraped descendants $d"
    within "$(series $d combined)" $((m + l)) $((h + le)) "scraped combined $d"
done

# The JSON report: each total the last sample's (the workload's own at its
# end for the whole tree), each rate the total's change over the samples'
# span, which the rates add up to (above).
for d in read write; do
    eval "e=\$end_${d:0:1}"
    for set in main descendants combined; do
        want=$(cell ${set}_disk_${d}_bytes '$')
        [ -n "$want" ] || fail "no ${set}_disk_${d}_bytes in the last row"
        within "$(jget r.json ".other_metrics.disk_${d}.$set")" "$want" "$want" "other_metrics.disk_${d}.$set"
    done
    within "$(jget r.json ".other_metrics.disk_${d}.combined")" "$e" "$e" "other_metrics.disk_${d}.combined"
    read -r moved secs <<<"$(awk -F, -v t="combined_disk_${d}_bytes" '
        NR == 3 { for (i = 1; i <= NF; i++) { if ($i == t) c = i; if ($i == "timestamp") s = i } }
        NR == 4 { v0 = $c; t0 = $s } NR > 3 { v = $c; t = $s } END { printf "%.17g %.17g", v - v0, t - t0 }' t.csv)"
    w=$d; [ $d = read ] || w=written
    rate=$(jget r.json ".other_metrics.disk_rate.$w")
    awk -v r="$rate" -v m="$moved" -v s="$secs" 'BEGIN { d = r * s - m; if (d < 0) d = -d; exit !(d <= 1e-6 * (m + 1)) }' ||
        fail "other_metrics.disk_rate.$w: $rate bytes/s over $secs s, the total moved $moved"
done
[ "$(jq -r 'keys_unsorted | .[-2:] | join(",")' r.json)" = other_metrics,top_processes ] ||
    fail "other_metrics not just before top_processes: $(jq -c keys_unsorted r.json)"

# gpu-tracker merge: two runs of other sizes on one node (the host each
# file records), merged: the node's and the job's totals are the sum of
# the files' last samples, each the workload's own counters at its end;
# the rate's mean, times the job's span, what the files moved.
for r in 1 2; do
    mkdir "$D/m$r"
    GT_SUBTRACK_HOST=1 SLURMD_NODENAME=n1 "$GT_BIN" --st=0.02 --tf=m$r.csv --disable-logs -o m$r.txt -- \
        "$W/disk_io" "$D/m$r" $((r * 512)) $((r * 128)) 64 0 2>err.txt | cat >said$r.txt
    [ "${PIPESTATUS[0]}" = 0 ] || fail "run m$r failed: $(cat err.txt)"
done
"$GT_BIN" merge m1.csv m2.csv -f json -o merged.json 2>err.txt || fail "merge failed: $(cat err.txt)"
"$GT_BIN" merge m1.csv m2.csv -o merged.txt 2>err.txt || fail "merge failed: $(cat err.txt)"
[ "$(jget merged.json '.job.nodes')" = 1 ] || fail "the two runs are not one node: $(jq -c .nodes merged.json)"
for d in read write; do
    w=$(grep '^io main-end ' said1.txt | cut -d' ' -f3-) v=$(grep '^io main-end ' said2.txt | cut -d' ' -f3-)
    [ -n "$w" ] && [ -n "$v" ] || fail "a run said no counters: $(cat said1.txt said2.txt)"
    [ $d = read ] && want=$((${w% *} + ${v% *})) || want=$((${w#* } + ${v#* }))
    within "$(jget merged.json ".job.other_metrics.disk_$d.combined")" $want $want "the job's disk_$d"
    within "$(jget merged.json ".nodes[0].other_metrics.disk_$d.combined")" $want $want "n1's disk_$d"
    moved=0
    for f in m1.csv m2.csv; do
        moved=$(awk -F, -v t="combined_disk_${d}_bytes" -v sum="$moved" '
            NR == 3 { for (i = 1; i <= NF; i++) if ($i == t) c = i }
            NR == 4 { v0 = $c } NR > 3 { v = $c } END { printf "%.17g", sum + v - v0 }' $f)
    done
    [ $d = read ] && k=read || k=written
    rate=$(jget merged.json ".job.other_metrics.disk_rate.$k") span=$(jget merged.json .job.compute_time_seconds)
    awk -v r="$rate" -v m="$moved" -v s="$span" 'BEGIN { d = r * s - m; if (d < 0) d = -d; exit !(d <= 1e-6 * (m + 1)) }' ||
        fail "the job's disk_rate.$k: $rate bytes/s over $span s, the files moved $moved"
done
grep -q '^Other metrics (' merged.txt && grep -q '^   Disk read (bytes)$' merged.txt ||
    fail "no Other metrics in the text report: $(cat merged.txt)"

# The processes table (--per-process): each process's own counters at the
# same sample, main's holding the child it reaped.
ts=$(cell timestamp $row)
proc_cells() { # PPID_IS (main: gpu-tracker's child; live: main's) -> "read write"
    awk -F, -v ts="$ts" -v gt=$gt -v who="$1" 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "disk_read_bytes") r = i; if ($i == "disk_write_bytes") w = i } }
        NR > 1 && $1 == ts && (who == "main") == ($3 == gt) { print $r, $w }' t.processes.csv
}
read -r pr pw <<<"$(proc_cells main)"
within "$pr" "$main_r" "$held_r" "main's disk_read_bytes in the processes table"
within "$pw" "$main_w" "$held_w" "main's disk_write_bytes in the processes table"
read -r pr pw <<<"$(proc_cells live)"
within "$pr" "$live_r" "$live_end_r" "the live child's disk_read_bytes in the processes table"
within "$pw" "$live_w" "$live_end_w" "the live child's disk_write_bytes in the processes table"

# Another user's process: its counters are not ours to read.
if [ "$(id -u)" != 0 ]; then
    skip_part "unreadable counters" "needs root to track a process as another user"
elif ! gtn=$(nobody_path "$GT_BIN"); then
    skip_part "unreadable counters" "user nobody cannot run this checkout's binary"
else
    chmod 755 "$TMP"
    mkdir -m 777 "$TMP/nobody"
    "$W/touch_mem" 0 "file=$TMP/release2" &
    pid=$!
    setpriv --reuid=65534 --regid=65534 --clear-groups -- "$gtn" --attach=$pid --st=0.02 --disable-logs \
        --tf="$TMP/nobody/u.csv" -f json -o "$TMP/nobody/u.json" >/dev/null 2>err.txt &
    gt=$!
    wait_for lines_at_least "$TMP/nobody/u.csv" 5
    kill -TERM $gt
    wait $gt || true
    touch "$TMP/release2"
    wait $pid
    for c in main_disk_read_bytes main_disk_write_bytes combined_disk_write_bytes \
        combined_disk_write_bytes_per_second; do
        n=$(awk -F, -v name=$c 'NR == 3 { for (i = 1; i <= NF; i++) if ($i == name) k = i }
            NR > 3 && $k != "" { x++ } END { print x + 0 }' "$TMP/nobody/u.csv")
        [ "$n" = 0 ] || fail "$c: $n cells of an unreadable process are not empty"
    done
    is_d() { [ "$(awk -F, -v name=descendants_disk_write_bytes 'NR == 3 { for (i = 1; i <= NF; i++) if ($i == name) k = i } END { print $k }' "$TMP/nobody/u.csv")" = 0 ]; }
    is_d || fail "descendants (none) wrote nothing: 0, not empty"
    [ "$(jq -c '.other_metrics.disk_write | [.main, .descendants, .combined]' "$TMP/nobody/u.json")" = '[null,0,null]' ] ||
        fail "the report of an unreadable process: $(jq -c .other_metrics "$TMP/nobody/u.json")"
fi
