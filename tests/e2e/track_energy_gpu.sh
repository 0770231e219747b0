# SPDX-License-Identifier: MIT
# GPU energy through the fake NVML library: the energy counter's difference
# where NVML has the counter, power integrated over the samples (and
# labelled so) where it answers NOT_SUPPORTED; the tracked processes' part
# by their share of the device's utilization.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/_lib.sh"
use_hooks # GT_SYSFS_ROOT
SECS=2 . "$HERE/_gpu.sh"
export GT_SYSFS_ROOT=$TMP/no-sysfs
# Device 0's counter stands at 1000 J for ten readings, then 3000 J: 2000 J,
# drawn while the main process used 50 of the device's 100 percent.
same=$(for i in 1 2 3 4 5 6 7 8 9 10; do printf '{"used": 1000, "util": 100, "energy_mj": 1000000, "power_mw": 1, "compute": [{"pid_file": "main.pid", "mem": 10, "sm": 50}]},'; done)
cat >nvml.json <<JSON
{"devices": [
 {"uuid": "GPU-11111111-aaaa", "total": 17179869184,
  "samples": [$same
    {"used": 1000, "util": 100, "energy_mj": 3000000, "power_mw": 1,
     "compute": [{"pid_file": "main.pid", "mem": 10, "sm": 50}]}]},
 {"uuid": "GPU-22222222-bbbb", "total": 8589934592,
  "errors": {"nvmlDeviceGetTotalEnergyConsumption": 3},
  "samples": [{"used": 2000, "util": 10, "power_mw": 150000}]}
]}
JSON
track --guuids=GPU-11111111-aaaa --tf=t.csv
expect '.energy.gpu.devices["gpu-0"].source' energy_counter
expect '.energy.gpu.devices["gpu-0"].energy' 2000.0
expect '.energy.gpu.devices["gpu-0"].attributed_energy_estimate' 1000.0
[ "$(jq -r .energy.gpu.unavailable r.json)" = null ] || fail "GPU unavailable: $(jq -r .energy.gpu.unavailable r.json)"
jget r.json .energy.gpu.attribution_method | grep -q '^gpu_utilization_share' || fail "GPU method"
[ "$(jq '.energy.gpu.devices | length' r.json)" = 1 ] || fail "--guuids: one device"
gpu=$(columns --energy gpu_energy_joules)
sed -n 3p t.csv | awk -F, -v g=$gpu '$g != "gpu_energy_joules" { exit 1 }' || fail "header: $(sed -n 3p t.csv)"
sed -n 4p t.csv | awk -F, -v g=$gpu '$g != "0.0" { exit 1 }' || fail "first row: $(sed -n 4p t.csv)"
tail -n 1 t.csv | awk -F, -v g=$gpu '$g != "2000.0" { exit 1 }' || fail "last row: $(tail -n 1 t.csv)"

# All devices: device 1 has no counter, so its power is integrated.
track
expect '.energy.gpu.devices["gpu-1"].source' power_integrated
mean=$(jget r.json '.energy.gpu.devices["gpu-1"].mean_power_watts')
within "$mean" 149.999999 150.000001 "integrated mean power"
e=$(jget r.json '.energy.gpu.devices["gpu-1"].energy')
t=$(jget r.json '.compute_time.time * 3600')
awk -v e="$e" -v t="$t" 'BEGIN { exit !(e > 150 * (t - 0.5) && e <= 150 * t) }' || fail "integrated energy $e over $t s"
expect '.energy.gpu.devices["gpu-0"].energy' 2000.0
grep -q "energy counter is unavailable" err.txt || fail "no warning about the missing counter: $(cat err.txt)"

# Neither counter nor power: unavailable, with the reason, never 0.
cat >nvml.json <<JSON
{"devices": [{"uuid": "GPU-11111111-aaaa", "total": 17179869184,
  "errors": {"nvmlDeviceGetTotalEnergyConsumption": 3, "nvmlDeviceGetPowerUsage": 3},
  "samples": [{"used": 1000, "util": 10}]}]}
JSON
track
[ "$(jq -r '.energy.gpu.devices["gpu-0"].energy' r.json)" = null ] || fail "made-up GPU energy"
jget r.json .energy.gpu.unavailable | grep -q "gpu-0: the vendor library gave neither" || fail "reason"

# AMD: ROCm SMI's energy accumulator (counts times the resolution).  No
# per-process utilization there, so the share is of the used memory.
export GT_ROCM_SMI_LIBRARY="$FAKES/rocm_smi.so"
amd_sysfs
same=$(for i in 1 2 3 4 5 6 7 8 9 10; do printf '{"used": 1000, "busy": 50, "energy": 1000, "resolution_uj": 16, "procs": [{"pid_file": "main.pid", "vram": 250}]},'; done)
cat >rsmi.json <<JSON
{"devices": [{"unique_id": "0x1a2b", "total": 17163091968,
  "samples": [$same {"used": 1000, "busy": 50, "energy": 1001000, "resolution_uj": 16,
                      "procs": [{"pid_file": "main.pid", "vram": 250}]}]}]}
JSON
GT_NVML_LIBRARY=$TMP/none.so track
expect '.energy.gpu.devices["gpu-0"].source' energy_counter
expect '.energy.gpu.devices["gpu-0"].energy' 16.0
expect '.energy.gpu.devices["gpu-0"].attributed_energy_estimate' 4.0
