# SPDX-License-Identifier: MIT
# --metrics with GPUs (the fake NVML): GPU memory, utilization, SM percent of
# the tracked processes, and each GPU's power and energy labelled with its
# UUID, scraped while the job runs.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/_lib.sh"
. "$HERE/_gpu.sh"
# The job's last level lives until the test has scraped what it checks
# (touch release), however slowly a loaded machine runs the tracker.
cat >grand.sh <<'SH'
echo $$ >grand.pid; while [ ! -e release ]; do sleep 0.1; done; true
SH
cat >nvml.json <<JSON
{"devices": [
 {"uuid": "GPU-11111111-aaaa", "total": 17179869184,
  "samples": [{"used": 5000000000, "util": 30, "power_mw": 50000, "energy_mj": 7000,
    "compute": [{"pid_file": "main.pid", "mem": 300000000, "sm": 20},
                {"pid_file": "grand.pid", "mem": 110000000}]}]},
 {"uuid": "GPU-22222222-bbbb", "total": 8589934592,
  "samples": [{"used": 2000000000, "util": 50, "power_mw": 25500, "energy_mj": 9000,
    "compute": [{"pid_file": "child.pid", "mem": 700000000, "sm": 40}]}]}
]}
JSON
: >err.txt # polled below, maybe before the background job has opened it
"$GT_BIN" --st=0.1 --metrics=127.0.0.1:0 -o report.txt -- sh main.sh >out.txt 2>err.txt &
gt=$!
trap 'touch release; kill $gt 2>/dev/null || true; wait 2>/dev/null || true; cleanup' EXIT
wait_metrics_address
metric() { awk -v k="$1" '$1 == k { print $2 }' m.txt; }
# Wait until the whole tree (grand.pid) is attributed.
tree_attributed() {
    curl -sf -o m.txt "http://$addr/metrics" && [ "$(metric 'gpu_tracker_gpu_ram_bytes{set="combined"}')" = 1110000000 ]
}
wait_for tree_attributed
[ "$(metric 'gpu_tracker_gpu_ram_bytes{set="main"}')" = 300000000 ] || fail "main GPU RAM: $(cat m.txt)"
[ "$(metric 'gpu_tracker_gpu_ram_bytes{set="descendants"}')" = 810000000 ] || fail "descendants GPU RAM"
[ "$(metric 'gpu_tracker_gpu_ram_bytes{set="combined"}')" = 1110000000 ] || fail "combined GPU RAM"
[ "$(metric 'gpu_tracker_gpu_ram_bytes{set="system"}')" = 7000000000 ] || fail "system GPU RAM"
[ "$(metric gpu_tracker_gpu_ram_capacity_bytes)" = 25769803776 ] || fail "GPU capacity"
[ "$(metric gpu_tracker_gpu_utilization_percent)" = 80 ] || fail "GPU utilization"
[ "$(metric gpu_tracker_gpus)" = 2 ] || fail "GPU count"
[ "$(metric 'gpu_tracker_gpu_process_utilization_percent{set="main"}')" = 20 ] || fail "SM main"
[ "$(metric 'gpu_tracker_gpu_process_utilization_percent{set="descendants"}')" = 40 ] || fail "SM descendants"
[ "$(metric 'gpu_tracker_gpu_power_watts{uuid="GPU-11111111-aaaa"}')" = 50 ] || fail "power GPU 0: $(cat m.txt)"
[ "$(metric 'gpu_tracker_gpu_power_watts{uuid="GPU-22222222-bbbb"}')" = 25.5 ] || fail "power GPU 1"
[ "$(metric 'gpu_tracker_gpu_energy_joules_total{uuid="GPU-11111111-aaaa"}')" = 7 ] || fail "energy GPU 0"
[ "$(metric 'gpu_tracker_gpu_energy_joules_total{uuid="GPU-22222222-bbbb"}')" = 9 ] || fail "energy GPU 1"
grep -q '^# TYPE gpu_tracker_gpu_energy_joules_total counter$' m.txt || fail "energy is not a counter"
promtool check metrics <m.txt || fail "promtool rejects the exposition"
curl -sf -o om.txt -H 'Accept: application/openmetrics-text; version=1.0.0' "http://$addr/metrics" ||
    fail "OpenMetrics scrape failed: $(cat err.txt)"
grep -q '^# TYPE gpu_tracker_gpu_energy_joules counter$' om.txt || fail "OpenMetrics energy family"
grep -q '^# UNIT gpu_tracker_gpu_energy_joules joules$' om.txt || fail "OpenMetrics energy unit"
touch release
wait $gt || fail "gpu-tracker failed: $(cat err.txt)"
