# SPDX-License-Identifier: MIT
# A grandchild orphaned by its parent stays in the tracked tree.
. "$(dirname "$0")/_lib.sh"
MIB=50
# The orphan holds its memory until three more rows are in the tracking
# file: two samples at least were taken wholly while it held it, however
# slowly a loaded machine (or valgrind) lets the tracker sample.
"$GT_BIN" --st=0.05 --ru=bytes -f json --tf=mem.csv -- "$W/orphan" rows=3@mem.csv $MIB >out.txt
json_report out.txt >r.json
N=$((MIB * 1048576))
within "$(jget r.json .max_ram.descendants.private_rss)" $((N * 97 / 100)) $((N * 115 / 100)) "orphan's memory"

# An orphan that burns 0.6 s of CPU (in a child it reaps) and exits between
# two samples is reaped by the tracker (the subreaper): no sample sees its
# last CPU time, which reaches the file only through the tracker's reaped
# children.  The command waits until the orphan has been reaped, then for
# two more rows (a sample taken wholly after the reaping), and writes the
# CPU time its descendants used, as they measured it themselves with
# getrusage: the bound comes from that, not from how busy the machine is.
"$GT_BIN" --st=1 --tf=t.csv -- "$W/orphan_cpu" 600 rows=2@t.csv truth.txt >/dev/null
truth=$(cat truth.txt)
within "$truth" 0.6 10 "the descendants' own CPU seconds (the orphan burnt 0.6 s)"
secs=$(awk -F, 'FNR == 3 { for (i = 1; i <= NF; i++) c[$i] = i }
    FNR == 4 { t0 = $c["timestamp"] }
    FNR > 3 && $c["cpu_descendants_sum_utilization_percent"] != "" {
        ts = $c["timestamp"]
        # the first row with a figure covers the time since the first row
        s += $c["cpu_descendants_sum_utilization_percent"] / 100 * (n++ ? ts - t : ts - t0)
        t = ts }
    END { printf "%.6f\n", s }' t.csv)
# Within two clock ticks (0.01 s each: the reaped child's time is read in
# ticks from its parent's stat) of the truth.
within "$secs" "$(awk -v t="$truth" 'BEGIN { print t - 0.02 }')" "$(awk -v t="$truth" 'BEGIN { print t + 0.02 }')" \
    "CPU seconds of an orphan reaped between samples (its own: $truth)"
