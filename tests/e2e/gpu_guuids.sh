# SPDX-License-Identifier: MIT
# --guuids selects the devices whose utilization is summed (n_expected_gpus
# divides it); GPU RAM stays system-wide as in the Python package.  A UUID
# that names no device is an error listing the valid ones.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/_lib.sh"
SECS=0.5 # before _gpu.sh, which writes the job with it
. "$HERE/_gpu.sh"
cat >nvml.json <<'JSON'
{"devices": [
 {"uuid": "GPU-aaaa", "total": 1000000000, "samples": [{"used": 100000000, "util": 20,
   "compute": [{"pid_file": "main.pid", "mem": 1000}]}]},
 {"uuid": "GPU-bbbb", "total": 2000000000, "samples": [{"used": 200000000, "util": 50,
   "compute": [{"pid_file": "child.pid", "mem": 2000}]}]},
 {"uuid": "GPU-cccc", "total": 4000000000, "samples": [{"used": 400000000, "util": 90}]}
]}
JSON
track --gru=bytes --guuids=GPU-cccc
expect .gpu_utilization.system_gpu_count 3
expect .gpu_utilization.n_expected_gpus 1
expect .gpu_utilization.gpu_percentages.max_sum_percent 90
expect .gpu_utilization.gpu_percentages.max_hardware_percent 90
expect .max_gpu_ram.system_capacity 7000000000
expect .max_gpu_ram.system 700000000
expect .max_gpu_ram.main 1000
expect .max_gpu_ram.descendants 2000

# Spaces around names are ignored; a name given twice is one device.
track --gru=bytes "--guuids= GPU-aaaa , GPU-bbbb,GPU-aaaa"
expect .gpu_utilization.n_expected_gpus 2
expect .gpu_utilization.gpu_percentages.max_sum_percent 70
expect .gpu_utilization.gpu_percentages.mean_hardware_percent 35

# The same list from --tconfig, as a JSON list.
echo '{"gpu_uuids": ["GPU-bbbb", "GPU-cccc"]}' >cfg.json
track --tconfig=cfg.json
expect .gpu_utilization.n_expected_gpus 2
expect .gpu_utilization.gpu_percentages.max_sum_percent 140

# An unknown UUID: exit 2, one line with the valid UUIDs, nothing run.
rc=0
"$GT_BIN" --guuids=GPU-aaaa,GPU-zzzz -- touch ran.marker >out.txt 2>err.txt || rc=$?
[ $rc = 2 ] || fail "unknown UUID: exit $rc"
[ ! -e ran.marker ] || fail "unknown UUID: the command ran"
grep -qx 'gpu-tracker: GPU UUID of GPU-zzzz is not valid. Available UUIDs are: GPU-aaaa, GPU-bbbb, GPU-cccc' err.txt ||
    fail "unknown UUID message: $(cat err.txt)"
# Without a usable GPU the list is not checked, as in the Python package.
GT_NVML_LIBRARY=$TMP/none.so track --guuids=GPU-zzzz
expect .gpu_utilization.n_expected_gpus 0
# A list that names nothing is an error too.
rc=0
"$GT_BIN" --guuids=, -- true >out.txt 2>err.txt || rc=$?
[ $rc = 2 ] || fail "empty UUID list: exit $rc"
grep -q 'gpu_uuids is not None but the set is empty' err.txt || fail "empty list message: $(cat err.txt)"
