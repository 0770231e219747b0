# SPDX-License-Identifier: MIT
# --efficiency: the request from a Slurm environment (1 GiB, 2 cores), a
# cgroup's limit (fixture trees, v1 and v2) or the machine's capacity; the
# figures against it from the run's own truth (a child holding 100 MiB, one
# busy thread of known CPU time), the --mem advised from the exact peak, and
# each advice line present or absent as its threshold says.  GPUs through
# the fake NVML: an idle GPU beside a busy one is named, busy ones are not.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/_lib.sh"
use_hooks # GT_SYSFS_ROOT

# No cgroup limit (an empty tree), so that Slurm's figures or the machine's
# are the ones read whatever cgroup the test runs in.
mkdir -p nocg/fs/cgroup
export GT_SYSFS_ROOT=$TMP/nocg
unset SLURM_MEM_PER_NODE SLURM_MEM_PER_CPU SLURM_CPUS_ON_NODE SLURM_CPUS_PER_TASK SLURM_JOB_NUM_NODES \
    SLURM_GPUS_ON_NODE SLURM_JOB_GPUS CUDA_VISIBLE_DEVICES SLURM_JOB_START_TIME SLURM_JOB_END_TIME
GT_NVML_LIBRARY=$TMP/no-nvml.so GT_ROCM_SMI_LIBRARY=$TMP/no-rocm.so
export GT_NVML_LIBRARY GT_ROCM_SMI_LIBRARY

eff() { jget r.json ".efficiency$1"; }
# same A B WHAT: equal to 9 significant digits (the report's own arithmetic).
same() {
    awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-9 * (b < 0 ? -b : b) + 1e-9) }' ||
        fail "$3: $1, expected $2"
}
MIB=1048576

# 1. Memory: 100 MiB held by the command itself (no descendant), so its
# exact high-water mark is the peak, against SLURM_MEM_PER_NODE=1024.
SLURM_MEM_PER_NODE=1024 SLURM_CPUS_ON_NODE=2 SLURM_JOB_NUM_NODES=1 \
    "$GT_BIN" --quiet --efficiency --st=0.1 --ru=bytes -f json -- "$W/touch_mem" 100 0.5 >out.txt
json_report out.txt >r.json
[ "$(eff .request.memory_source)" = SLURM_MEM_PER_NODE ] || fail "source: $(jq -c .efficiency.request r.json)"
same "$(eff .request.memory_bytes)" $((1024 * MIB)) "memory requested"
same "$(eff .request.nodes)" 1 "nodes"
peak=$(jget r.json .peak_ram.main)
[ "$(jget r.json .peak_ram.main_method)" = exact ] || fail "main's peak is not exact: $(jq -c .peak_ram r.json)"
same "$(eff .memory.peak_bytes)" "$peak" "peak = the command's exact high-water mark"
case $(eff .memory.peak_method) in *exact) ;; *) fail "peak method: $(eff .memory.peak_method)" ;; esac
within "$peak" $((100 * MIB)) $((1024 * MIB)) "peak holds the 100 MiB"
same "$(eff .memory.percent_of_request)" "$(awk -v p="$peak" 'BEGIN { printf "%.17g", 100 * p / 1073741824 }')" "percent"
# The advice: the peak plus 20 %, up to a multiple of 128 MiB.
want=$(awk -v p="$peak" 'BEGIN { n = p * 1.2 / (128 * 1048576); m = int(n); if (m < n) m++; print "--mem=" m * 128 "M" }')
[ "$(eff .memory.advised_request)" = "$want" ] || fail "advised $(eff .memory.advised_request), expected $want"
eff .advice.memory | grep -qF "ask for $want next time" || fail "memory advice: $(eff .advice.memory)"
# Nothing after the section: it is the report's last key.
[ "$(jq -r 'keys_unsorted | last' r.json)" = efficiency ] || fail "not last: $(jq -c 'keys_unsorted' r.json)"

# The --mem named for a peak where the rule's parts show: 220 MiB held (and
# the program's own few MiB) plus 20 % is above 256 MiB, so 384M; 10 % of
# headroom, or steps of 256 MiB, would name 256M.
SLURM_MEM_PER_NODE=1024 "$GT_BIN" --quiet --efficiency --st=0.1 --ru=bytes -f json -- "$W/touch_mem" 220 0.3 >out.txt
json_report out.txt >r.json
within "$(eff .memory.peak_bytes)" $((220 * MIB)) $((232 * MIB)) "peak of 220 MiB held (bytes)"
[ "$(eff .memory.advised_request)" = --mem=384M ] || fail "advised for 220 MiB: $(eff .memory.advised_request)"

# Text: the bar, the advice line, and the same report before the section
# as without --efficiency.
SLURM_MEM_PER_NODE=1024 SLURM_CPUS_ON_NODE=2 \
    "$GT_BIN" --quiet --efficiency --st=0.1 -- "$W/touch_mem" 100 0.3 >t.txt
grep -qE '^      Bar: \[\|{3,5} +(9|10)%\]$' t.txt || fail "memory bar: $(grep -A1 'Percent of request' t.txt)"
grep -q "^      Memory: 1.0 GiB requested (SLURM_MEM_PER_NODE), " t.txt || fail "text advice: $(grep -A3 Advice t.txt)"
"$GT_BIN" --quiet --st=0.1 -- "$W/touch_mem" 1 0.1 >plain.txt
grep -q '^Efficiency' plain.txt && fail "the section without --efficiency"
[ "$(sed -n '/^Efficiency:/q;p' t.txt | grep -c '^[A-Z]')" = "$(grep -c '^[A-Z]' plain.txt)" ] ||
    fail "other sections changed: $(grep '^[A-Z]' t.txt)"

# A request the peak comes near (SLURM_MEM_PER_NODE at the peak's MiB):
# advice to ask for more.
mib=$(awk -v p="$peak" 'BEGIN { m = int(p / 1048576); if (m * 1048576 < p) m++; print m }')
SLURM_MEM_PER_NODE=$mib "$GT_BIN" --quiet --efficiency --st=0.1 --ru=bytes -f json -- "$W/touch_mem" 100 0.3 >out.txt
json_report out.txt >r.json
eff .advice.memory | grep -q "within 10 % of the limit" || fail "near-limit advice: $(jq -c .efficiency r.json)"
# Between the thresholds (the peak at 2/3 of the request): no memory advice.
SLURM_MEM_PER_NODE=$((mib * 3 / 2)) "$GT_BIN" --quiet --efficiency --st=0.1 -f json -- "$W/touch_mem" 100 0.3 >out.txt
json_report out.txt >r.json
[ "$(jq -r .efficiency.advice.memory r.json)" = null ] || fail "advice between thresholds: $(eff .advice.memory)"

# 2. CPU: one thread burning 0.8 s of its own CPU time of 2 cores.  The
# CPU seconds are the exited processes' own (getrusage): at least the 0.8 s,
# and one thread never uses more than the wall time.
SLURM_CPUS_ON_NODE=2 "$GT_BIN" --quiet --efficiency --st=0.1 -f json -- "$W/burn" 1 800 >out.txt
json_report out.txt >r.json
cpu=$(eff .cpu.cpu_seconds) wall=$(eff .cpu.wall_seconds)
within "$cpu" 0.8 "$wall" "CPU seconds of one busy thread"
same "$(eff .cpu.efficiency_percent)" "$(awk -v c="$cpu" -v w="$wall" 'BEGIN { printf "%.17g", 100 * c / (2 * w) }')" "CPU %"
case $(eff .cpu.cpu_seconds_method) in *exact) ;; *) fail "CPU method: $(eff .cpu.cpu_seconds_method)" ;; esac
eff .advice.cores | grep -q "^1 of 2 allocated cores (SLURM_CPUS_ON_NODE) sat idle: .*ask for 1 core next time" ||
    fail "cores advice: $(jq -c .efficiency r.json)"
# The same thread on the 1 core it asked for: no core sat idle.
SLURM_CPUS_ON_NODE=1 "$GT_BIN" --quiet --efficiency --st=0.1 -f json -- "$W/burn" 1 300 >out.txt
json_report out.txt >r.json
[ "$(jq -r .efficiency.advice.cores r.json)" = null ] || fail "cores advice on 1 core: $(eff .advice.cores)"

# 3. Malformed Slurm figures are unknown, never 0: the cgroup's limit
# stands in (v1 and v2 fixture trees), else the machine's capacity.
mkdir -p v1/fs/cgroup/memory v1/fs/cgroup/cpu v2/fs/cgroup
echo 536870912 >v1/fs/cgroup/memory/memory.limit_in_bytes
echo 150000 >v1/fs/cgroup/cpu/cpu.cfs_quota_us
echo 100000 >v1/fs/cgroup/cpu/cpu.cfs_period_us
echo 268435456 >v2/fs/cgroup/memory.max
echo "50000 100000" >v2/fs/cgroup/cpu.max
# Which one the kernel's /proc/self/cgroup makes us read: v1 where it lists
# a memory hierarchy, v2 otherwise (a path absent from the tree reads its
# root).
if grep -q '^[0-9]*:\([^:]*,\)\?memory\(,[^:]*\)\?:' /proc/self/cgroup; then
    tree=v1 mem=536870912 cores=1.5 src="cgroup v1 memory.limit_in_bytes"
else
    tree=v2 mem=268435456 cores=0.5 src="cgroup v2 memory.max"
fi
GT_SYSFS_ROOT=$TMP/$tree SLURM_MEM_PER_NODE=12X SLURM_CPUS_ON_NODE=two SLURM_JOB_GPUS=0,,1 \
    "$GT_BIN" --quiet --efficiency --st=0.1 -f json -- "$W/touch_mem" 1 0.1 >out.txt
json_report out.txt >r.json
[ "$(eff .request.memory_source)" = "$src" ] || fail "$tree source: $(jq -c .efficiency.request r.json)"
same "$(eff .request.memory_bytes)" "$mem" "$tree memory limit"
if grep -q '^[0-9]*:\([^:]*,\)\?cpu\(,[^:]*\)\?:' /proc/self/cgroup || [ $tree = v2 ]; then
    same "$(eff .request.cores)" "$cores" "$tree CPU quota"
fi
GT_SYSFS_ROOT=$TMP/nocg SLURM_MEM_PER_NODE= SLURM_CPUS_ON_NODE=-2 \
    "$GT_BIN" --quiet --efficiency --st=0.1 --ru=bytes -f json -- "$W/touch_mem" 1 0.1 >out.txt
json_report out.txt >r.json
[ "$(eff .request.memory_source)" = "machine capacity" ] || fail "machine: $(jq -c .efficiency.request r.json)"
same "$(eff .request.memory_bytes)" "$(jget r.json .max_ram.system_capacity)" "machine RAM"
same "$(eff .request.cores)" "$(jget r.json .cpu_utilization.system_core_count)" "machine cores"
[ "$(eff .request.gpus_source)" = "machine capacity" ] || fail "GPUs: $(jq -c .efficiency.request r.json)"

# Outside Slurm (no SLURM_* variable at all) and under no cgroup limit:
# the machine's own capacity, the run's figures "of this machine".
"$GT_BIN" --quiet --efficiency --st=0.1 --ru=bytes -f json -- "$W/touch_mem" 50 0.1 >out.txt
json_report out.txt >r.json
jq -e '.efficiency.request | .memory_source == "machine capacity" and .cores_source == "machine capacity" and
       .gpus_source == "machine capacity" and .nodes == null and .cpus_per_task == null and .time_limit_seconds == null' \
    r.json >/dev/null || fail "outside Slurm: $(jq -c .efficiency.request r.json)"
same "$(eff .request.memory_bytes)" "$(jget r.json .max_ram.system_capacity)" "machine RAM outside Slurm"
same "$(eff .request.cores)" "$(jget r.json .cpu_utilization.system_core_count)" "machine cores outside Slurm"
same "$(eff .memory.percent_of_request)" \
    "$(awk -v p="$(eff .memory.peak_bytes)" -v c="$(jget r.json .max_ram.system_capacity)" 'BEGIN { printf "%.17g", 100 * p / c }')" \
    "share of the machine's RAM"
same "$(eff .cpu.efficiency_percent)" "$(awk -v c="$(eff .cpu.cpu_seconds)" -v w="$(eff .cpu.wall_seconds)" \
    -v n="$(jget r.json .cpu_utilization.system_core_count)" 'BEGIN { printf "%.17g", 100 * c / (n * w) }')" \
    "share of the machine's cores"

# 4. GPUs through the fake NVML (CUDA_VISIBLE_DEVICES=0,1): each GPU's
# own mean utilization and memory share; one idle beside a busy one is named
# with its figures, two busy ones are not advised against.
gpus() {
    cat >nvml.json <<JSON
{"devices": [
 {"uuid": "GPU-11111111-aaaa", "total": 17179869184, "samples": [{"used": 8000000000, "util": $1}]},
 {"uuid": "GPU-22222222-bbbb", "total": 17179869184, "samples": [{"used": 1000000000, "util": $2}]}]}
JSON
    GT_NVML_LIBRARY=$GT_BUILD/fakes/nvml.so FAKE_NVML_SCENARIO=$TMP/nvml.json FAKE_NVML_LOG=$TMP/nvml.log \
        CUDA_VISIBLE_DEVICES=0,1 "$GT_BIN" --quiet --efficiency --st=0.1 -f json -- "$W/touch_mem" 1 0.3 >out.txt
    json_report out.txt >r.json
}
gpus 90 0
same "$(eff .request.gpus)" 2 "GPUs requested"
[ "$(eff .request.gpus_source)" = CUDA_VISIBLE_DEVICES ] || fail "GPU source: $(jq -c .efficiency.request r.json)"
same "$(eff .gpu.n_gpus)" 2 "GPUs tracked"
same "$(eff .gpu.mean_utilization_percent)" 45 "the GPUs' mean utilization"
same "$(eff '.gpu.devices["0"].mean_utilization_percent')" 90 "GPU 0 utilization"
same "$(eff '.gpu.devices["1"].mean_utilization_percent')" 0 "GPU 1 utilization"
same "$(eff '.gpu.devices["1"].memory_percent_of_capacity')" "$(awk 'BEGIN { printf "%.17g", 100 * 1e9 / 17179869184 }')" \
    "GPU 1 memory"
same "$(eff .gpu.memory_percent_of_capacity)" "$(awk 'BEGIN { printf "%.17g", 100 * 9e9 / (2 * 17179869184) }')" \
    "the GPUs' memory"
[ "$(eff .advice.gpus)" = "1 of the 2 GPUs (CUDA_VISIBLE_DEVICES) stayed idle or nearly (mean utilization below 5 %): GPU 1 (GPU-22222222-bbbb) 0.0 %, memory peak 5.8 % of capacity; ask for 1 GPU next time" ] ||
    fail "GPU advice: $(jq -c .efficiency r.json)"
gpus 90 60
same "$(eff '.gpu.devices["1"].mean_utilization_percent')" 60 "GPU 1 busy"
[ "$(jq -r .efficiency.advice.gpus r.json)" = null ] || fail "advice on busy GPUs: $(eff .advice.gpus)"
echo ok
