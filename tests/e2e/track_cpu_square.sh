# SPDX-License-Identifier: MIT
# gt-test: serial: CPU figures of a square wave against the workload's own CPU clock
# At intervals under the 0.25-s window, a burst then a sleep: the rows in
# which the process sleeps (its clock does not move) are credited no more
# than the clocks' lateness explains (two scheduler ticks), however much CPU
# time the window's rate had held back at the burst, and the rows' CPU
# seconds still add up to the workload's own CPU time.
. "$(dirname "$0")/_lib.sh"
# Time the host took the virtual CPUs away (steal, /proc/stat) can be charged
# to the thread that was running: a row then holds more than its wall time,
# which is carried into the next rows, a sleep's among them (see
# docs/measurements.md). The machine's steal over the run, all CPUs, bounds it.
steal() { awk '$1 == "cpu" { print $9 }' /proc/stat; }
steal0=$(steal)
"$GT_BIN" --st=0.02 --tu=seconds -f json --tf=t.csv -- "$W/square" 5 240 200 sleeps.txt >out.txt 2>err.txt ||
    fail "tracking failed: $(cat err.txt)"
stolen=$(awk -v a="$steal0" -v b="$(steal)" -v hz="$(getconf CLK_TCK)" 'BEGIN { print (b - a) / hz }')
truth=$(grep -E '^[0-9.]+$' out.txt | head -1)
[ -n "$truth" ] || fail "no ground truth from square"
tick=$(sed -n 's/^tick \([0-9.]*\)$/\1/p' out.txt)
[ -n "$tick" ] || fail "no tick from square"
[ "$(wc -l <sleeps.txt)" = 5 ] || fail "the workload logged $(wc -l <sleeps.txt) sleeps of 5"
# Per sleep: the CPU seconds credited to the rows that lie inside it (from
# the row before at or after its start to 20 ms before its end, so that a
# sample whose reads were late cannot reach into the next burst), the
# process's own CPU time over the sleep, and the rows counted.
awk -F, 'NR == FNR { a[NR] = $1; b[NR] = $2; c[NR] = $4 - $3; n = NR; next }
    FNR == 3 { for (i = 1; i <= NF; i++) col[$i] = i }
    FNR > 3 { t = $col["timestamp"]; v = $col["cpu_main_sum_utilization_percent"]
        if (v != "" && seen++) # the first figure covers the time since the first row
            for (k = 1; k <= n; k++)
                if (p >= a[k] && t <= b[k] - 0.02) { s[k] += v / 100 * (t - p); r[k]++ }
        p = t }
    END { for (k = 1; k <= n; k++) printf "%d %.6f %.6f %d\n", k, s[k], c[k], r[k] }' \
    FS=' ' sleeps.txt FS=, t.csv >inside.txt
while read -r k credited own rows; do
    [ "$rows" -ge 3 ] || fail "sleep $k: only $rows rows inside it"
    # At most two ticks of the burst for its one thread: what was carried
    # at the burst's last sample and what its clock had not yet counted
    # then, less what the row across the sleep's start could take (its wall
    # time at one core); and what steal charged to it.
    within "$credited" 0 "$(awk -v c="$own" -v k="$tick" -v s="$stolen" 'BEGIN { print c + 2 * k + 0.001 + s }')" \
        "sleep $k: CPU seconds credited to its $rows rows (the process's own: $own s; steal over the run: $stolen s)"
done <inside.txt
# All rows: the first with a figure covers the time since the first row.
sum=$(awk -F, 'NR == 3 { for (i = 1; i <= NF; i++) c[$i] = i } NR > 3 {
        t = $c["timestamp"]; v = $c["cpu_main_sum_utilization_percent"]
        if (NR == 4) t0 = t
        if (v != "") { s += v / 100 * (n++ ? t - p : t - t0) }
        p = t } END { print s }' t.csv)
# A tick per thread at each end, the carry the last burst may leave (one
# USER_HZ tick per core), 2 % of the truth for the process's start.
tol=$(awk -v t="$truth" 'BEGIN { print 0.02 * t + 0.04 }')
within "$sum" "$(awk -v t="$truth" -v d="$tol" 'BEGIN { print t - d }')" \
    "$(awk -v t="$truth" -v d="$tol" 'BEGIN { print t + d }')" "CPU seconds over the run (the workload's own: $truth)"
echo "ok: $(tr '\n' ';' <inside.txt) total $sum of $truth s"
