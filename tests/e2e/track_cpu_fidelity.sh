# SPDX-License-Identifier: MIT
# gt-test: serial: CPU figures at short intervals against the workload's own CPU time
# gt-test: no-san: CPU figures against the workload's own; track_cpu runs the same sampler code under the sanitizers
# CPU percents at short intervals: spinning threads whose CPU time the kernel
# updates only at its scheduler tick.  The max must stay within what the
# threads and the cores can run; the CPU seconds the tracking file adds up
# must match the workload's own record of its CPU time over the same span.
. "$(dirname "$0")/_lib.sh"
for st in 0.001 0.01 0.1; do
    for T in 1 2; do
        tag="--st=$st, $T spinning thread(s)"
        steal0=$(awk '$1 == "cpu" { print $9 }' /proc/stat)
        "$GT_BIN" --st="$st" --tu=seconds -f json --tf="t$st-$T.csv" -- \
            "$W/spin" "$T" 1200 "log$st-$T" >"out$st-$T.txt" 2>/dev/null
        # In a virtual machine, time the host took a virtual CPU away
        # (steal, 10 ms ticks) can be charged to the thread running on it:
        # each tick of it may raise a reading by 10 ms over the 0.25 s
        # window, 4 %.
        steal=$(($(awk '$1 == "cpu" { print $9 }' /proc/stat) - steal0))
        [ "$steal" -eq 0 ] || tag="$tag, $steal ticks stolen"
        sed -n '/^{/,$p' "out$st-$T.txt" >r.json
        cores=$(jget r.json .cpu_utilization.system_core_count)
        max=$(jget r.json .cpu_utilization.main.max_sum_percent)
        # One tick per running thread over the 0.2 s window (2 % at HZ=250,
        # 5 % at HZ=100) plus the 3 % slack: 100 x threads + 5 holds for
        # HZ >= 250; the cores bound holds always.
        # On failure, the rows around the max (time, percent, threads) say
        # where in the run it came.
        awk -v m="$max" -v T="$T" -v x=$((4 * steal)) 'BEGIN { exit !(m > 100 * T + 5 + x) }' &&
            awk -F, 'FNR == 3 { for (i = 1; i <= NF; i++) c[$i] = i } FNR > 3 { r[FNR] = $c["timestamp"] " " \
                $c["cpu_main_sum_utilization_percent"] " " $c["main_n_threads"]; if ($c["cpu_main_sum_utilization_percent"] + 0 > b) { b = $c["cpu_main_sum_utilization_percent"] + 0; at = FNR } }
                END { print "rows " at - 3 " of " FNR - 3 ":"; for (i = at - 3; i <= at + 3; i++) if (i in r) print "  " r[i] }' "t$st-$T.csv" >&2
        within "$max" 1 $((100 * T + 5 + 4 * steal)) "$tag: max CPU percent"
        within "$max" 1 $((100 * cores + 5)) "$tag: max CPU percent (cores)"
        # Sum of percent x interval over the rows that have a CPU figure,
        # and the workload's CPU time between the first and the last of
        # those rows (interpolated in its 5 ms log).
        awk -F, 'NR == FNR { split($0, f, " "); lt[NR] = f[1]; lc[NR] = f[2]; ln = NR; next }
            FNR == 3 { for (i = 1; i <= NF; i++) c[$i] = i }
            FNR > 3 && $c["cpu_main_sum_utilization_percent"] != "" {
                ts = $c["timestamp"]
                if (n++) s += $c["cpu_main_sum_utilization_percent"] / 100 * (ts - t); else t0 = ts
                t = ts }
            function cpu(x,   i) {
                for (i = 2; i <= ln && lt[i] < x; i++) ;
                if (i > ln) return lc[ln]
                return lc[i - 1] + (lc[i] - lc[i - 1]) * (x - lt[i - 1]) / (lt[i] - lt[i - 1]) }
            END { printf "%d %.6f %.6f %.6f\n", n, s, cpu(t) - cpu(t0), t - t0 }' \
            "log$st-$T" "t$st-$T.csv" >sum.txt
        read -r n sum truth span <sum.txt
        [ "$n" -ge 3 ] || fail "$tag: only $n samples with a CPU figure"
        # Each end of the span is uncertain by one scheduler tick per thread
        # in the log and in the kernel's clock (4 x 10 ms at worst), plus
        # the slack the last interval may still carry (3 % of the window).
        # Below, also the carry: CPU time a thread got in a burst after being
        # starved (a busy machine) is credited at most 2 % of a core above
        # the window's rate, so some may still wait when the run ends (a
        # quarter of the window per thread allowed; never above the truth).
        tol=$(awk -v t="$truth" -v T="$T" 'BEGIN { print 0.02 * t + 0.04 * T + 0.006 }')
        lo=$(awk -v t="$truth" -v d="$tol" -v T="$T" 'BEGIN { print t - d - 0.0625 * T }')
        hi=$(awk -v t="$truth" -v d="$tol" 'BEGIN { print t + d }')
        within "$sum" "$lo" "$hi" "$tag: CPU seconds over $span s (workload's own: $truth)"
    done
done
