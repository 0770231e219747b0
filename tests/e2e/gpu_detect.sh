# SPDX-License-Identifier: MIT
# Detection as the Python package does it, with its warnings: NVIDIA first,
# then AMD; a library that loads but reaches no GPU "cannot connect"; no
# library at all leaves the GPU fields at zero.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/_lib.sh"
SECS=0.2 # before _gpu.sh, which writes the job with it
. "$HERE/_gpu.sh"
zero_gpu() {
    expect .max_gpu_ram.system_capacity 0
    expect .max_gpu_ram.system 0
    expect .gpu_utilization.system_gpu_count 0
    expect .gpu_utilization.n_expected_gpus 0
}
# The Python package's words for its two libraries; the library of a vendor
# backend added after them is named before "could be loaded".
NEITHER="Neither the NVIDIA NVML library (libnvidia-ml.so.1) nor the ROCm SMI library (librocm_smi64.so.1)"
NEITHER_END=" could be loaded. Install a GPU driver to profile the GPU. Otherwise the GPU RAM and GPU utilization values will remain 0.0."
NV_CANNOT="The NVIDIA NVML library (libnvidia-ml.so.1) is installed but cannot connect to a GPU. The GPU RAM and GPU utilization values will remain 0.0."

GT_NVML_LIBRARY=$TMP/none.so track
zero_gpu
[ "$(wc -l <err.txt)" = 1 ] || fail "no library: $(cat err.txt)"
case "$(cat err.txt)" in
"gpu-tracker: warning: $NEITHER"*"$NEITHER_END") ;;
*) fail "no library: $(cat err.txt)" ;;
esac

# The library loads but its init fails: the Python package's warning, then
# what NVML said.
echo '{"errors": {"nvmlInit_v2": 9}, "devices": [{"uuid": "GPU-x", "total": 1}]}' >nvml.json
track
zero_gpu
warned_once "$NV_CANNOT"
warned_once "nvmlInit_v2: Driver Not Loaded, NVML error 9"
[ "$(wc -l <err.txt)" = 2 ] || fail "init failure: $(cat err.txt)"
grep -q nvmlShutdown nvml.log && fail "shut down a library whose init failed"

# Initialized, but no device: cannot connect, and NVML is shut down.
echo '{"devices": []}' >nvml.json
track
zero_gpu
warned_once "$NV_CANNOT"
grep -qx nvmlShutdown nvml.log || fail "not shut down after finding no device"

# A device-count failure is the same case.
echo '{"errors": {"nvmlDeviceGetCount_v2": 999}, "devices": [{"uuid": "GPU-x", "total": 1}]}' >nvml.json
track
warned_once "$NV_CANNOT"

# --disable-logs silences the detection warnings too.
GT_NVML_LIBRARY=$TMP/none.so track --disable-logs
[ ! -s err.txt ] || fail "warning despite --disable-logs: $(cat err.txt)"

# A brand named with --gb is the only one tried.
echo '{"devices": [{"uuid": "GPU-x", "total": 1000, "samples": [{"used": 10}]}]}' >nvml.json
track --gb=amd
zero_gpu
grep -qF "The ROCm SMI library (librocm_smi64.so.1) could not be loaded." err.txt || fail "--gb=amd: $(cat err.txt)"
track --gb=nvidia --gru=bytes
expect .max_gpu_ram.system_capacity 1000
[ ! -s err.txt ] || fail "--gb=nvidia: $(cat err.txt)"
