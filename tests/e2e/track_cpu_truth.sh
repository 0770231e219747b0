# SPDX-License-Identifier: MIT
# gt-test: serial: CPU seconds and means against the workload's own CPU time
# The CPU figures against the kernel's clock for the whole thread group,
# which the workload reads itself at its end (spin prints "cpu_s wall_s"):
# - threads created after one sample and joined before the next are in no
#   sampled thread count, yet their CPU time is in the group's clock: the
#   intervals' CPU seconds must add up to it, whatever the thread counts;
# - the mean is over time: the short interval of the sample taken at stop
#   weighs as little as it lasted, so mean x span is the CPU time.
. "$(dirname "$0")/_lib.sh"

# cpu_sum CSV: the CPU seconds of main summed over the tracking file (each
# row's percent times its span; the first row with a figure covers the
# time since the first row) and the span from the first row to the last.
cpu_sum() {
    awk -F, 'NR == 3 { for (i = 1; i <= NF; i++) c[$i] = i } NR > 3 {
        t = $c["timestamp"]; v = $c["cpu_main_sum_utilization_percent"]
        if (NR == 4) t0 = t
        if (v != "") { s += v / 100 * (n++ ? t - p : t - t0) }
        p = t } END { printf "%.6f %.6f\n", s, p - t0 }' "$1"
}

# 1. Two threads for 0.3 s, between the first sample and the last (a run
# shorter than one 1-s interval): no sample sees them.
"$GT_BIN" --tu=seconds -f json --tf=burst.csv -- "$W/spin" 2 300 >burst.txt
read -r truth wall < <(grep -E '^[0-9.]+ [0-9.]+$' burst.txt | head -1)
[ -n "$truth" ] || fail "no ground truth from spin"
read -r sum span <<<"$(cpu_sum burst.csv)"
# One scheduler tick per thread at each end of the span (10 ms at HZ=100),
# and 2 % of the truth for the process's own start.
tol=$(awk -v t="$truth" 'BEGIN { print 0.02 * t + 0.06 }')
within "$sum" "$(awk -v t="$truth" -v d="$tol" 'BEGIN { print t - d }')" \
    "$(awk -v t="$truth" -v d="$tol" 'BEGIN { print t + d }')" \
    "CPU seconds of a 2-thread burst between samples (workload's own: $truth over $wall s)"
sed -n '/^{/,$p' burst.txt >burst.json
max=$(jget burst.json .cpu_utilization.main.max_sum_percent)
# The burst's own rate over the tracked span, less the tolerance.
lo=$(awk -v t="$truth" -v d="$tol" -v s="$span" 'BEGIN { print (t - d) / s * 100 }')
within "$max" "$lo" 205 "max CPU percent of a 2-thread burst (truth $truth s over $span s)"

# 2. Two threads for 2.5 s at 1-s intervals: three full intervals and a
# short last one.  Mean x span must be the CPU time.
"$GT_BIN" --st=1 --tu=seconds -f json --tf=long.csv -- "$W/spin" 2 2500 >long.txt
read -r truth wall < <(grep -E '^[0-9.]+ [0-9.]+$' long.txt | head -1)
[ -n "$truth" ] || fail "no ground truth from spin"
read -r sum span <<<"$(cpu_sum long.csv)"
sed -n '/^{/,$p' long.txt >long.json
mean=$(jget long.json .cpu_utilization.main.mean_sum_percent)
secs=$(awk -v m="$mean" -v s="$span" 'BEGIN { print m / 100 * s }')
tol=$(awk -v t="$truth" 'BEGIN { print 0.02 * t + 0.06 }')
within "$secs" "$(awk -v t="$truth" -v d="$tol" 'BEGIN { print t - d }')" \
    "$(awk -v t="$truth" -v d="$tol" 'BEGIN { print t + d }')" \
    "mean CPU percent x span ($mean % x $span s; workload's own: $truth s over $wall s)"
# The same mean as the tracking file's rows weighed by their spans.
within "$secs" "$(awk -v s="$sum" 'BEGIN { print s - 0.001 }')" "$(awk -v s="$sum" 'BEGIN { print s + 0.001 }')" \
    "mean x span against the tracking file's CPU seconds"
echo "ok: mean $mean % over $span s, the workload's own $truth s of CPU"
