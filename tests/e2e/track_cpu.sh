# SPDX-License-Identifier: MIT
# gt-test: serial: CPU percents and seconds against the threads' own CPU time
# T threads burning CPU: the main process's CPU percent is near 100*T.
. "$(dirname "$0")/_lib.sh"
T=2
"$GT_BIN" --st=0.1 --nec=2 --tu=seconds -f json --tf=t.csv -- "$W/burn" $T 800 >out.txt
json_report out.txt >r.json
# CPU seconds = mean percent x wall time: robust to other load on the machine
# (which stretches the wall time but not the CPU time the threads burn).
mean=$(jget r.json .cpu_utilization.main.mean_sum_percent)
secs=$(jget r.json '.cpu_utilization.main.mean_sum_percent / 100 * .compute_time.time')
within "$secs" 1.3 1.95 "main CPU seconds (2 threads x 0.8 s)"
# The max is at least the mean and at most what 2 threads can run (plus the
# window's 2 % slack; tests/e2e/track_cpu_fidelity.sh checks it closely).
# Each interval's percent times its length, summed over the tracking file,
# adds up to the CPU time the kernel reported between the rows (at most
# 2 x 0.8 s + the main thread's little).
within "$(jget r.json .cpu_utilization.main.max_sum_percent)" "$mean" 205 "main max CPU percent"
# The first row with a figure covers the time since the first row.
sum=$(awk -F, 'NR == 3 { for (i = 1; i <= NF; i++) c[$i] = i } NR > 3 {
        t = $c["timestamp"]; v = $c["cpu_main_sum_utilization_percent"]
        if (NR == 4) t0 = t
        if (v != "") { s += v / 100 * (n++ ? t - p : t - t0) }
        p = t } END { print s }' t.csv)
within "$sum" 1.5 1.7 "main CPU seconds summed over the tracking file"
hw=$(jget r.json .cpu_utilization.main.mean_hardware_percent)
awk -v m="$mean" -v h="$hw" 'BEGIN { d = m / 2 - h; exit !(d < 1e-9 && d > -1e-9) }' || fail "hardware percent"
[ "$(jget r.json .cpu_utilization.main_n_threads)" = $((T + 1)) ] || fail "threads"
within "$(jget r.json .cpu_utilization.system.max_sum_percent)" 100 205 "system CPU"
