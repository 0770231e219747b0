# SPDX-License-Identifier: MIT
# AMD through the fake ROCm SMI: the same figures as for NVIDIA, with
# processes listed system-wide; detection order NVIDIA then AMD with the
# Python package's warnings; ROCm SMI error codes degrade once.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/_lib.sh"
. "$HERE/_gpu.sh"
export GT_ROCM_SMI_LIBRARY="$FAKES/rocm_smi.so"
amd_sysfs
cat >rsmi.json <<JSON
{"devices": [
 {"unique_id": "0x1a2b3c4d5e6f7081", "total": 17163091968,
  "samples": [{"used": 3000000000, "busy": 20, "power_uw": 95000000, "energy": 1000,
    "procs": [{"pid_file": "main.pid", "vram": 400000000}, {"pid_file": "grand.pid", "vram": 1000},
              {"pid": $$, "vram": 2000000000}]}]},
 {"unique_id": "0x99", "total": 8573157376,
  "samples": [{"used": 1000000000, "busy": 70,
    "procs": [{"pid_file": "child.pid", "vram": 600000000}, {"pid_file": "grand.pid", "vram": 20000}]}]}
]}
JSON
GT_NVML_LIBRARY=$TMP/none.so track --gru=bytes
[ ! -s err.txt ] || fail "unexpected warnings: $(cat err.txt)"
expect .max_gpu_ram.system_capacity 25736249344
expect .max_gpu_ram.system 4000000000
expect .max_gpu_ram.main 400000000
expect .max_gpu_ram.descendants 600021000
expect .max_gpu_ram.combined 1000021000
expect .gpu_utilization.system_gpu_count 2
expect .gpu_utilization.gpu_percentages.max_sum_percent 90
expect .gpu_utilization.gpu_percentages.max_hardware_percent 45
[ "$(grep -c '^rsmi_init$' rsmi.log)" = 1 ] || fail "rsmi_init calls"
[ "$(tail -n 1 rsmi.log)" = rsmi_shut_down ] || fail "not shut down last"

# --guuids takes rocm-smi's unique IDs.
GT_NVML_LIBRARY=$TMP/none.so track --guuids=0x99
expect .gpu_utilization.n_expected_gpus 1
expect .gpu_utilization.gpu_percentages.max_sum_percent 70
rc=0
GT_NVML_LIBRARY=$TMP/none.so "$GT_BIN" --guuids=0x5 -- true >out.txt 2>err.txt || rc=$?
[ $rc = 2 ] || fail "unknown AMD UUID: exit $rc"
grep -q 'GPU UUID of 0x5 is not valid. Available UUIDs are: 0x1a2b3c4d5e6f7081, 0x99' err.txt ||
    fail "unknown AMD UUID: $(cat err.txt)"

# NVIDIA comes first when both are usable; AMD is not even initialized.
echo '{"devices": [{"uuid": "GPU-n", "total": 1000, "samples": [{"used": 1}]}]}' >nvml.json
track --gru=bytes
expect .max_gpu_ram.system_capacity 1000
[ ! -e rsmi.log ] || fail "ROCm SMI initialized although NVIDIA was found"
# --gb=amd skips NVIDIA.
track --gru=bytes --gb=amd
expect .max_gpu_ram.system_capacity 25736249344
[ ! -e nvml.log ] || fail "NVML loaded despite --gb=amd"
# NVML present but reaching no GPU: AMD is used, silently as in Python.
echo '{"errors": {"nvmlInit_v2": 9}, "devices": []}' >nvml.json
track --gru=bytes
expect .max_gpu_ram.system_capacity 25736249344
[ ! -s err.txt ] || fail "warned although AMD was usable: $(cat err.txt)"
# Both installed, neither reaching a GPU: the first brand is named.
cp rsmi.json rsmi.good.json
echo '{"errors": {"rsmi_init": 8}, "devices": []}' >rsmi.json
track
warned_once "The NVIDIA NVML library (libnvidia-ml.so.1) is installed but cannot connect to a GPU."
# No AMD GPU in sysfs: the library is loaded but not initialized, and the
# warning says why.
rm -r "$GT_SYSFS_ROOT/class/drm"
cp rsmi.good.json rsmi.json
GT_NVML_LIBRARY=$TMP/none.so track
warned_once "The ROCm SMI library (librocm_smi64.so.1) is installed but cannot connect to a GPU."
warned_once "rsmi_init: not called: no AMD GPU in $GT_SYSFS_ROOT/class/drm (no card of PCI vendor 0x1002 or driver amdgpu) nor in the KFD topology"
[ ! -e rsmi.log ] || fail "rsmi_init called without an AMD GPU: $(cat rsmi.log)"
# A GPU node in the KFD topology is one too.
mkdir -p "$GT_SYSFS_ROOT/class/kfd/kfd/topology/nodes/0" "$GT_SYSFS_ROOT/class/kfd/kfd/topology/nodes/1"
echo 0 >"$GT_SYSFS_ROOT/class/kfd/kfd/topology/nodes/0/gpu_id"
echo 0 >"$GT_SYSFS_ROOT/class/kfd/kfd/topology/nodes/1/gpu_id"
GT_NVML_LIBRARY=$TMP/none.so track
[ ! -e rsmi.log ] || fail "rsmi_init called with CPU nodes only in the KFD topology"
echo 53896 >"$GT_SYSFS_ROOT/class/kfd/kfd/topology/nodes/1/gpu_id"
GT_NVML_LIBRARY=$TMP/none.so track --gru=bytes
expect .max_gpu_ram.system_capacity 25736249344
rm -r "$GT_SYSFS_ROOT/class/kfd"
amd_sysfs
echo '{"errors": {"rsmi_init": 8}, "devices": []}' >rsmi.json
# Only ROCm SMI installed, failing: amd-smi cannot connect, then the status.
GT_NVML_LIBRARY=$TMP/none.so track
warned_once "The ROCm SMI library (librocm_smi64.so.1) is installed but cannot connect to a GPU. The GPU RAM and GPU utilization values will remain 0.0."
warned_once "rsmi_init: RSMI_STATUS_INIT_ERROR: An error occurred during initialization, ROCm SMI status 8"
expect .gpu_utilization.system_gpu_count 0

# Error codes: NOT_SUPPORTED for utilization, PERMISSION for processes.
python3 - rsmi.good.json >rsmi.json <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["devices"][1]["errors"] = {"rsmi_dev_busy_percent_get": 2, "rsmi_dev_power_ave_get": 4}
s["errors"] = {"rsmi_compute_process_info_get": 4}
json.dump(s, sys.stdout)
PY
GT_NVML_LIBRARY=$TMP/none.so track --gru=bytes
expect .max_gpu_ram.system 4000000000
expect .max_gpu_ram.combined 0
expect .gpu_utilization.gpu_percentages.max_sum_percent 20
warned_once "GPU 1 (0x99): rsmi_dev_busy_percent_get: not supported (RSMI_STATUS_NOT_SUPPORTED: The requested information or action is not available, ROCm SMI status 2); the GPU utilization leaves this GPU out."
warned_once "GPU 1 (0x99): rsmi_dev_power_ave_get: no permission"
warned_once "rsmi_compute_process_info_get: no permission (RSMI_STATUS_PERMISSION: The user ID of the calling process does not have permission, ROCm SMI status 4); the GPU RAM of the main process and its descendants is not counted."
[ "$(wc -l <err.txt)" = 3 ] || fail "expected 3 warnings: $(cat err.txt)"
