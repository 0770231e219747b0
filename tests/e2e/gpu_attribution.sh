# SPDX-License-Identifier: MIT
# GPU RAM attributed by the real PIDs of the main process and its
# descendants, on two devices; an unrelated process counts in the system
# figure only.  Exact bytes, then the units of --gru.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/_lib.sh"
. "$HERE/_gpu.sh"
cat >nvml.json <<JSON
{"devices": [
 {"uuid": "GPU-11111111-aaaa", "total": 17179869184,
  "samples": [{"used": 5000000000, "util": 30, "power_mw": 50000, "energy_mj": 7000,
    "compute": [{"pid_file": "main.pid", "mem": 300000000, "sm": 20},
                {"pid_file": "grand.pid", "mem": 110000000},
                {"pid": $$, "mem": 4000000000}],
    "graphics": [{"pid_file": "main.pid", "mem": 300000000}]}]},
 {"uuid": "GPU-22222222-bbbb", "total": 8589934592,
  "samples": [{"used": 2000000000, "util": 50, "power_mw": 25500, "energy_mj": 9000,
    "compute": [{"pid_file": "child.pid", "mem": 700000000, "sm": 40}],
    "graphics": [{"pid_file": "grand.pid", "mem": 5000000, "sm": 5}]}]}
]}
JSON
track --gru=bytes
for f in main.pid child.pid grand.pid; do [ -s $f ] || fail "the job did not write $f"; done
expect .max_gpu_ram.unit bytes
expect .max_gpu_ram.system_capacity 25769803776.0
expect .max_gpu_ram.system 7000000000.0
# The main process is in both lists of GPU 0 with one figure: counted once.
expect .max_gpu_ram.main 300000000.0
expect .max_gpu_ram.descendants 815000000.0
expect .max_gpu_ram.combined 1115000000.0
expect .gpu_utilization.system_gpu_count 2
expect .gpu_utilization.n_expected_gpus 2
expect .gpu_utilization.gpu_percentages.max_sum_percent 80.0
expect .gpu_utilization.gpu_percentages.mean_sum_percent 80.0
expect .gpu_utilization.gpu_percentages.max_hardware_percent 40.0
expect .gpu_utilization.gpu_percentages.mean_hardware_percent 40.0
# gpu-tracker's own: SM percent of the tracked processes (maxima: the
# processes start after the first samples), power of the selected GPUs.
expect .gpu_process_utilization.main.max_sum_percent 20
expect .gpu_process_utilization.descendants.max_sum_percent 45
expect .gpu_process_utilization.combined.max_sum_percent 65
expect .gpu_process_utilization.combined.max_hardware_percent 32.5
expect .gpu_power.unit watts
expect .gpu_power.max 75.5
expect .gpu_power.mean 75.5
[ ! -s err.txt ] || fail "unexpected warnings: $(cat err.txt)"
# The library is loaded and initialized once, and shut down at the end.
[ "$(grep -c '^nvmlInit_v2$' nvml.log)" = 1 ] || fail "nvmlInit_v2 calls: $(grep -c nvmlInit nvml.log)"
[ "$(grep -c '^nvmlShutdown$' nvml.log)" = 1 ] || fail "nvmlShutdown calls"
[ "$(tail -n 1 nvml.log)" = nvmlShutdown ] || fail "not shut down last"

# Units: bytes from NVML, converted once (1 MB = 1e6 bytes).
track --gru=megabytes
expect .max_gpu_ram.unit megabytes
expect .max_gpu_ram.main 300.0
expect .max_gpu_ram.combined 1115.0
expect .max_gpu_ram.system 7000.0
track --gru=gigabytes
expect .max_gpu_ram.system_capacity 25.769803776
expect .max_gpu_ram.descendants 0.815

# Only the selected GPU's processes and power count.
track --guuids=GPU-22222222-bbbb
expect .gpu_process_utilization.main.max_sum_percent 0
expect .gpu_process_utilization.descendants.max_sum_percent 45
expect .gpu_process_utilization.descendants.max_hardware_percent 45
expect .gpu_power.max 25.5

# The text report says the same.
"$GT_BIN" --st=0.1 --gru=megabytes -- sh main.sh >out.txt 2>err.txt
grep -A6 '^Max GPU RAM:' out.txt >gpu.txt
grep -q '^   Unit: megabytes$' gpu.txt || fail "text unit: $(cat gpu.txt)"
grep -q '^   Main: 300.0$' gpu.txt || fail "text main: $(cat gpu.txt)"
grep -q '^   Descendants: 815.0$' gpu.txt || fail "text descendants: $(cat gpu.txt)"
grep -q '^   System: 7000.0$' gpu.txt || fail "text system: $(cat gpu.txt)"
grep -A3 '^GPU power:' out.txt | grep -q '^   Max: 75.5$' || fail "text power: $(cat out.txt)"
grep -q '^GPU process utilization (SM):$' out.txt || fail "text SM section: $(cat out.txt)"

# The tracking file has the same figures per sample, in the --gru unit.
track --gru=megabytes --tf=t.csv
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i } NR == 2 {
        exit !($c["gpu_ram_system_capacity"] == 25769.803776 && $c["system_gpu_count"] == 2 && $c["n_expected_gpus"] == 2) }' t.csv ||
    fail "static GPU data: $(head -2 t.csv)"
awk -F, 'NR == 3 { for (i = 1; i <= NF; i++) c[$i] = i } NR > 3 {
        if ($c["main_gpu_ram"] > m) m = $c["main_gpu_ram"]
        if ($c["combined_gpu_ram"] > cb) cb = $c["combined_gpu_ram"]
        if ($c["system_gpu_ram"] != 7000 || $c["gpu_sum_utilization_percent"] != 80 ||
            $c["gpu_hardware_utilization_percent"] != 40) bad = 1
    } END { exit !(m == 300 && cb == 1115 && !bad) }' t.csv || fail "GPU columns: $(sed -n '3,5p' t.csv)"

# A driver that takes a process's utilization sample every 400 ms, read
# every 50 ms: each per-process row of the main process, once the driver
# lists it, holds its 50 %, not 0 between the driver's samples.
cat >nvml.json <<'JSON'
{"devices": [{"uuid": "GPU-p", "total": 1000000000, "sm_period_ms": 400,
  "samples": [{"used": 5000, "util": 50, "compute": [{"pid_file": "main.pid", "mem": 1000, "sm": 50}]}]}]}
JSON
rm -f p.csv p.processes.csv
"$GT_BIN" --st=0.05 --tf=p.csv --per-process -- sh main.sh >out.txt 2>err.txt || fail "per-process run: $(cat err.txt)"
read -r listed wrong <<<"$(awk -F, -v pid="$(cat main.pid)" '
    NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "pid") p = i; if ($i == "gpu0_ram") m = i; if ($i == "gpu0_sm_percent") c = i }; next }
    $p == pid && $m > 0 { n++; if ($c != 50) bad++ }
    END { print n + 0, bad + 0 }' p.processes.csv)"
[ "$listed" -ge 3 ] || fail "the main process was listed in $listed rows"
[ "$wrong" = 0 ] || fail "$wrong of $listed rows of the main process do not hold its 50 % SM"

