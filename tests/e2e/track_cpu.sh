# T threads burning CPU: the main process's CPU percent is near 100*T.
. "$(dirname "$0")/_lib.sh"
T=2
"$GT_BIN" --st=0.1 --nec=2 -f json -- "$W/burn" $T 800 >out.txt
json_report out.txt >r.json
mean=$(jget r.json .cpu_utilization.main.mean_sum_percent)
within "$mean" 120 $((T * 100 + 15)) "main mean CPU percent"
within "$(jget r.json .cpu_utilization.main.max_sum_percent)" 150 $((T * 100 + 40)) "main max CPU percent"
hw=$(jget r.json .cpu_utilization.main.mean_hardware_percent)
awk -v m="$mean" -v h="$hw" 'BEGIN { d = m / 2 - h; exit !(d < 1e-9 && d > -1e-9) }' || fail "hardware percent"
[ "$(jget r.json .cpu_utilization.main_n_threads)" = $((T + 1)) ] || fail "threads"
within "$(jget r.json .cpu_utilization.system.max_sum_percent)" 100 205 "system CPU"
