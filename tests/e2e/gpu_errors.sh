# SPDX-License-Identifier: MIT
# Each NVML error code degrades only its figure, is warned about once (not
# every sample), and never stops tracking; a GPU lost mid-run is left out
# from then on.  Then a driver from before the versioned functions.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/_lib.sh"
. "$HERE/_gpu.sh"
cat >nvml.json <<JSON
{"devices": [
 {"uuid": "GPU-aaaa", "total": 1000000000,
  "errors": {"nvmlDeviceGetUtilizationRates": 3, "nvmlDeviceGetPowerUsage": 999},
  "samples": [{"used": 100, "util": 10,
    "compute": [{"pid_file": "main.pid", "mem": 1000}, {"pid_file": "grand.pid", "mem": 3000}],
    "graphics": [{"pid": $$, "mem": null}]}]},
 {"uuid": "GPU-bbbb", "total": 2000000000,
  "errors": {"nvmlDeviceGetComputeRunningProcesses_v3": 4, "nvmlDeviceGetTotalEnergyConsumption": 13},
  "samples": [{"used": 200, "util": 50, "compute": [{"pid_file": "child.pid", "mem": 7000}]}]},
 {"uuid": "GPU-cccc", "total": 4000000000, "lost_after": 2,
  "samples": [{"used": 300, "util": 40}]}
]}
JSON
track --gru=bytes
expect .gpu_utilization.system_gpu_count 3
expect .gpu_utilization.n_expected_gpus 3
expect .max_gpu_ram.system_capacity 7000000000
# GPU 2 counts while it is there (samples 1 and 2).
expect .max_gpu_ram.system 600
expect .max_gpu_ram.main 1000
# The child's memory is on the GPU that refuses the process list.
expect .max_gpu_ram.descendants 3000
expect .max_gpu_ram.combined 4000
# GPU 0's utilization is unsupported: 50 + 40 while GPU 2 lives, then 50.
expect .gpu_utilization.gpu_percentages.max_sum_percent 90
expect .gpu_utilization.gpu_percentages.max_hardware_percent 30
mean=$(jget r.json .gpu_utilization.gpu_percentages.mean_sum_percent)
within "$mean" 50 90 "mean utilization"
warned_once "GPU 0 (GPU-aaaa): nvmlDeviceGetUtilizationRates: not supported (Not Supported, NVML error 3); the GPU utilization leaves this GPU out."
warned_once "GPU 0 (GPU-aaaa): nvmlDeviceGetPowerUsage: failed (Unknown Error, NVML error 999); its power draw is unavailable."
warned_once "GPU 0 (GPU-aaaa): per-process GPU memory: not supported (the driver gives no figure for PID $$); the GPU RAM of such processes is not counted."
warned_once "GPU 1 (GPU-bbbb): nvmlDeviceGetComputeRunningProcesses_v3: no permission (Insufficient Permissions, NVML error 4); the GPU RAM of the main process and its descendants leaves this GPU out."
warned_once "GPU 1 (GPU-bbbb): nvmlDeviceGetTotalEnergyConsumption is missing from the installed library; its energy counter is unavailable."
warned_once "GPU 2 (GPU-cccc) is lost (nvmlDeviceGetMemoryInfo_v2: GPU is lost, NVML error 15); its figures are left out from now on."
[ "$(wc -l <err.txt)" = 6 ] || fail "expected 6 warnings: $(cat err.txt)"
# The lost GPU is read once more (the failing read), then never again,
# while the others are read every sample.
[ "$(grep -c '^sample 2 ' nvml.log)" = 4 ] || fail "GPU 2 reads: $(grep -c '^sample 2 ' nvml.log)"
[ "$(grep -c '^sample 0 ' nvml.log)" -gt 5 ] || fail "GPU 0 reads: $(grep -c '^sample 0 ' nvml.log)"
grep -qx nvmlShutdown nvml.log || fail "not shut down"

# --disable-logs silences them all.
track --gru=bytes --disable-logs
[ ! -s err.txt ] || fail "warnings despite --disable-logs: $(cat err.txt)"
expect .max_gpu_ram.combined 4000

# An old driver: unversioned init and process listings (v1 structs), no
# power, energy or process utilization.  The figures it has are exact.
cat >nvml.json <<'JSON'
{"devices": [{"uuid": "GPU-old", "total": 1000000000,
  "samples": [{"used": 5000, "util": 25,
    "compute": [{"pid_file": "main.pid", "mem": 1000}, {"pid_file": "child.pid", "mem": 20000}],
    "graphics": [{"pid_file": "grand.pid", "mem": 300000}]}]}]}
JSON
GT_NVML_LIBRARY=$FAKES/nvml_old.so track --gru=bytes
grep -qx nvmlInit nvml.log || fail "nvmlInit not used: $(head -3 nvml.log)"
expect .max_gpu_ram.main 1000
expect .max_gpu_ram.descendants 320000
expect .max_gpu_ram.system 5000
expect .gpu_utilization.gpu_percentages.max_sum_percent 25
warned_once "GPU 0 (GPU-old): nvmlDeviceGetPowerUsage is missing from the installed library; its power draw is unavailable."
warned_once "GPU 0 (GPU-old): nvmlDeviceGetTotalEnergyConsumption is missing from the installed library; its energy counter is unavailable."
warned_once "GPU 0 (GPU-old): nvmlDeviceGetProcessUtilization is missing from the installed library; the SM utilization of the tracked processes leaves this GPU out."
[ "$(wc -l <err.txt)" = 3 ] || fail "expected 3 warnings: $(cat err.txt)"
# Figures the driver lacks are left out of the report, not shown as zero.
jq -e 'has("gpu_power") or has("gpu_process_utilization") | not' r.json >/dev/null ||
    fail "sections for figures the driver lacks"

# A driver of R525 to R530, whose _v3 listings write 32-byte entries (the
# fields of CUDA 12.0's nvml.h): read with the _v2 listings, every process
# has its own memory.
GT_NVML_LIBRARY=$FAKES/nvml_cc.so track --gru=bytes
expect .max_gpu_ram.main 1000
expect .max_gpu_ram.descendants 320000
[ ! -s err.txt ] || fail "warnings from the R525 driver: $(cat err.txt)"

# The memory the driver reserves for itself is no process's use: where the
# driver reports it apart (nvmlDeviceGetMemoryInfo_v2) the system's used
# memory leaves it out, as nvidia-smi does; an old driver's figure, or one
# whose _v2 knows no version 2, holds it.
cat >nvml.json <<'JSON'
{"devices": [{"uuid": "GPU-r", "total": 1000000000, "samples": [{"used": 5000, "reserved": 600, "util": 25}]}]}
JSON
track --gru=bytes --disable-logs
expect .max_gpu_ram.system 5000
GT_NVML_LIBRARY=$FAKES/nvml_old.so track --gru=bytes --disable-logs
expect .max_gpu_ram.system 5600
cat >nvml.json <<'JSON'
{"devices": [{"uuid": "GPU-r", "total": 1000000000, "errors": {"nvmlDeviceGetMemoryInfo_v2": 25},
  "samples": [{"used": 5000, "reserved": 600, "util": 25}]}]}
JSON
track --gru=bytes
expect .max_gpu_ram.system 5600
[ ! -s err.txt ] || fail "warnings for a driver without version 2 of the memory struct: $(cat err.txt)"

# Inside a container with its own PID namespace the driver's (host) PIDs
# exist nowhere here: nothing can be attributed, which is said once.
PMAX=$(cat /proc/sys/kernel/pid_max)
cat >nvml.json <<JSON
{"devices": [{"uuid": "GPU-ns", "total": 1000,
  "samples": [{"used": 900, "util": 10,
    "compute": [{"pid": $((PMAX + 1)), "mem": 300}, {"pid": $((PMAX + 2)), "mem": 600}]}]}]}
JSON
track --gru=bytes
expect .max_gpu_ram.system 900
expect .max_gpu_ram.combined 0
warned_once "None of the 2 processes that the GPU driver lists exists in this PID namespace (a container?): GPU RAM of the main process and its descendants cannot be attributed and stays 0.0."
[ "$(wc -l <err.txt)" = 1 ] || fail "PID namespace: $(cat err.txt)"
