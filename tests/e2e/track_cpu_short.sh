# A command shorter than the CPU window (0.25 s) at --st=0.01: its CPU
# figures are true, never 0.  The first sample with a CPU figure covers all
# the time since the first sample (for a short run: the last sample, over the
# whole run), so the tracking file's CPU seconds are the CPU time the kernel
# measured for the command, whatever the load on the machine.
. "$(dirname "$0")/_lib.sh"
# One thread spinning 150 ms of wall time; spin prints its own CPU time (all
# its threads, the kernel's nanosecond clock) and its wall time at its end.
"$GT_BIN" --st=0.01 --tu=seconds -f json --tf=t.csv -- "$W/spin" 1 150 >out.txt
read -r cpu_s wall_s <out.txt
sed '1,2d' out.txt >r.json
max=$(jget r.json .cpu_utilization.main.max_sum_percent)
mean=$(jget r.json .cpu_utilization.main.mean_sum_percent)
awk -v c="$cpu_s" 'BEGIN { exit !(c > 0.005) }' || skip "the spinning thread got no CPU time ($cpu_s s)"
# Never 0: the machine may be loaded, but the thread ran for cpu_s seconds.
awk -v m="$mean" 'BEGIN { exit !(m > 0) }' || fail "main mean CPU percent is $mean"
awk -v m="$max" 'BEGIN { exit !(m > 0) }' || fail "main max CPU percent is $max"
awk -v m="$(jget r.json .cpu_utilization.combined.mean_sum_percent)" 'BEGIN { exit !(m > 0) }' ||
    fail "combined mean CPU percent is 0"
# Bounded by what 1 spinning thread can run: 100 % + one tick over the span
# (4 ms at HZ=250 over the 0.15 s run: under 3 %) + the 2 % slack.
within "$max" "$mean" 106 "main max CPU percent"
# Each row's percent times its span (the first row with a figure: since the
# first row), summed: the thread's CPU time, up to one tick each end and what
# the process used before its first sample (its exec, under a millisecond).
read -r secs rows first_span <<EOF
$(awk -F, 'NR == 3 { for (i = 1; i <= NF; i++) c[$i] = i } NR > 3 {
        t = $c["timestamp"]; v = $c["cpu_main_sum_utilization_percent"]
        if (NR == 4) t0 = t
        if (v != "") { s += v / 100 * (n ? t - p : t - t0); if (!n) fs = t - t0; n++ }
        p = t } END { print s, n, fs }' t.csv)
EOF
[ "$rows" -ge 1 ] || fail "no row of the tracking file has a CPU figure"
lo=$(awk -v c="$cpu_s" 'BEGIN { print c - 0.015 }')
hi=$(awk -v c="$cpu_s" 'BEGIN { print c + 0.015 }')
within "$secs" "$lo" "$hi" "main CPU seconds summed over the tracking file (spin's own: $cpu_s)"
# A run that ended within the window has one figure, the mean over the run:
# the thread's CPU time over the span from the first sample to the last.
if [ "$rows" = 1 ]; then
    lo=$(awk -v c="$cpu_s" -v w="$first_span" 'BEGIN { print (c - 0.015) / w * 100 }')
    hi=$(awk -v c="$cpu_s" -v w="$first_span" 'BEGIN { print (c + 0.015) / w * 100 }')
    within "$mean" "$lo" "$hi" "main mean CPU percent (spin's $cpu_s s over $first_span s)"
fi
# The text report says the same, not 0.0.
"$GT_BIN" --st=0.01 -- "$W/spin" 1 100 >text.txt
if grep -A 4 '^   Main:$' text.txt | grep -q 'Max sum percent: 0\.0$'; then
    fail "text report shows 0.0 % for a spinning thread"
fi
exit 0
