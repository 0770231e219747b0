# SPDX-License-Identifier: MIT
# A grandchild orphaned by its parent stays in the tracked tree.
. "$(dirname "$0")/_lib.sh"
MIB=50
"$GT_BIN" --st=0.05 --ru=bytes -f json -- "$W/orphan" 1 $MIB >out.txt
json_report out.txt >r.json
N=$((MIB * 1048576))
within "$(jget r.json .max_ram.descendants.private_rss)" $((N * 97 / 100)) $((N * 115 / 100)) "orphan's memory"

# An orphan that burns 0.6 s of CPU (in a child it reaps) and exits between
# two samples is reaped by the tracker (the subreaper): no sample sees its
# last CPU time, which reaches the file only through the tracker's reaped
# children.  The command outlives it by more than an interval, however long
# a loaded machine takes to burn.
"$GT_BIN" --st=1 --tf=t.csv -- sh -c "( ( \"$W/burn\" 1 600; touch burnt ) & ); until [ -e burnt ]; do sleep 0.05; done; sleep 1.5" >/dev/null
secs=$(awk -F, 'FNR == 3 { for (i = 1; i <= NF; i++) c[$i] = i }
    FNR == 4 { t0 = $c["timestamp"] }
    FNR > 3 && $c["cpu_descendants_sum_utilization_percent"] != "" {
        ts = $c["timestamp"]
        # the first row with a figure covers the time since the first row
        s += $c["cpu_descendants_sum_utilization_percent"] / 100 * (n++ ? ts - t : ts - t0)
        t = ts }
    END { printf "%.6f\n", s }' t.csv)
within "$secs" 0.59 0.75 "CPU seconds of an orphan reaped between samples"
