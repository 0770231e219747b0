# SPDX-License-Identifier: MIT
# gt-test: serial: CPU figures of a 0.15 s command at --st=0.01
# A command shorter than the CPU window (0.25 s) at --st=0.01: its CPU
# figures are true, never 0.  The first sample with a CPU figure covers all
# the time since the first sample (for a short run: the last sample, over the
# whole run), so the tracking file's CPU seconds are the CPU time the kernel
# measured for the command, whatever the load on the machine.
. "$(dirname "$0")/_lib.sh"
# check SET TAG: the report's and the tracking file's figures of SET (main,
# combined) against spin's own CPU time, the first line of out.txt: spin
# prints its CPU time (all its threads, the kernel's nanosecond clock) and
# its wall time at its end.
check() {
    local set=$1 tag=$2 cpu_s wall_s
    read -r cpu_s wall_s <out.txt
    sed '1,2d' out.txt >r.json
    awk -v c="$cpu_s" 'BEGIN { exit !(c > 0.005) }' || skip "the spinning thread got no CPU time ($cpu_s s)"
    local max mean
    max=$(jq -r ".cpu_utilization.$set.max_sum_percent" r.json)
    mean=$(jq -r ".cpu_utilization.$set.mean_sum_percent" r.json)
    [ "$max" != null ] && [ "$mean" != null ] || fail "$tag: $set CPU percents unavailable"
    # Never 0: the machine may be loaded, but the thread ran for cpu_s.
    awk -v m="$mean" 'BEGIN { exit !(m > 0) }' || fail "$tag: $set mean CPU percent is $mean"
    # Bounded by what 1 spinning thread can run: 100 % + one tick over the
    # span (4 ms at HZ=250 over a 0.15 s run: under 3 %) + the 2 % slack.
    within "$max" "$mean" 106 "$tag: $set max CPU percent"
    # Each row's percent times its span (the first row with a figure: since
    # the first row), summed: the thread's CPU time, up to a tick at each end
    # (a reaped child's: 10 ms) and what ran before the first sample (the
    # exec, under a millisecond).
    local secs rows first_span lo hi
    read -r secs rows first_span <<EOF
$(awk -F, -v col="cpu_${set}_sum_utilization_percent" '
        NR == 3 { for (i = 1; i <= NF; i++) c[$i] = i } NR > 3 {
        t = $c["timestamp"]; v = $c[col]
        if (NR == 4) t0 = t
        if (v != "") { s += v / 100 * (n ? t - p : t - t0); if (!n) fs = t - t0; n++ }
        p = t } END { print s, n, fs }' t.csv)
EOF
    [ "$rows" -ge 1 ] || fail "$tag: no row of the tracking file has a CPU figure"
    lo=$(awk -v c="$cpu_s" 'BEGIN { print c - 0.02 }')
    hi=$(awk -v c="$cpu_s" 'BEGIN { print c + 0.02 }')
    within "$secs" "$lo" "$hi" "$tag: $set CPU seconds summed over the tracking file (spin's own: $cpu_s)"
    # A run that ended within the window has one figure, the mean over the
    # run: the thread's CPU time over the span from the first sample.
    if [ "$rows" = 1 ]; then
        lo=$(awk -v c="$cpu_s" -v w="$first_span" 'BEGIN { print (c - 0.02) / w * 100 }')
        hi=$(awk -v c="$cpu_s" -v w="$first_span" 'BEGIN { print (c + 0.02) / w * 100 }')
        within "$mean" "$lo" "$hi" "$tag: $set mean CPU percent (spin's $cpu_s s over $first_span s)"
    fi
}
# One thread spinning 150 ms of wall time as the main process.
"$GT_BIN" --st=0.01 --tu=seconds -f json --tf=t.csv -- "$W/spin" 1 150 >out.txt
check main "spin"
rm -f t.csv
# CPU first, then idle: the last interval alone would read 0 %, the run's
# figure must not.  spin is a descendant here, its end counted through sh's
# cutime.
"$GT_BIN" --st=0.01 --tu=seconds -f json --tf=t.csv -- sh -c "\"$W/spin\" 1 100; sleep 0.08" >out.txt
check combined "spin, then sleep"
check descendants "spin, then sleep"
rm -f t.csv
# Longer than the window, CPU in its first 0.25 s only: the samples then
# have no figure, and the first that has one covers their time.
"$GT_BIN" --st=0.01 --tu=seconds -f json --tf=t.csv -- sh -c "\"$W/spin\" 1 150; sleep 0.35" >out.txt
check combined "spin, then a longer sleep"
# The text report says the same, not 0.0.
"$GT_BIN" --st=0.01 -- "$W/spin" 1 100 >text.txt
if grep -A 4 '^   Main:$' text.txt | grep -q 'Max sum percent: 0\.0$'; then
    fail "text report shows 0.0 % for a spinning thread"
fi
exit 0
