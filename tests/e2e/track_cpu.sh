# T threads burning CPU: the main process's CPU percent is near 100*T.
. "$(dirname "$0")/_lib.sh"
T=2
"$GT_BIN" --st=0.1 --nec=2 --tu=seconds -f json -- "$W/burn" $T 800 >out.txt
json_report out.txt >r.json
# CPU seconds = mean percent x wall time: robust to other load on the machine
# (which stretches the wall time but not the CPU time the threads burn).
mean=$(jget r.json .cpu_utilization.main.mean_sum_percent)
secs=$(jget r.json '.cpu_utilization.main.mean_sum_percent / 100 * .compute_time.time')
within "$secs" 1.3 1.95 "main CPU seconds (2 threads x 0.8 s)"
# The max is at least the mean; how far above depends on the machine's load
# and on the kernel's utime/stime, which for a running process advance in
# uneven steps (tick sampling scaled to the scheduler's runtime), so one
# 0.1 s interval can show up to a few ticks per thread more than it ran.
within "$(jget r.json .cpu_utilization.main.max_sum_percent)" "$mean" $((T * 100 + 100)) "main max CPU percent"
hw=$(jget r.json .cpu_utilization.main.mean_hardware_percent)
awk -v m="$mean" -v h="$hw" 'BEGIN { d = m / 2 - h; exit !(d < 1e-9 && d > -1e-9) }' || fail "hardware percent"
[ "$(jget r.json .cpu_utilization.main_n_threads)" = $((T + 1)) ] || fail "threads"
within "$(jget r.json .cpu_utilization.system.max_sum_percent)" 100 205 "system CPU"
