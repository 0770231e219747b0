# SPDX-License-Identifier: MIT
# merge's Efficiency section gives each GPU of a node from its tasks'
# per-GPU rows (--per-gpu), through the fake NVML: two tasks of node n1
# share GPU 0 (one GPU, its rows of both files pooled), task 0 alone also
# sees GPU 1, idle, which the advice names; a task of n2 tracked without
# --per-gpu is said to need it.  CSV and SQLite tracking files.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/_lib.sh"

unset CUDA_VISIBLE_DEVICES SLURM_MEM_PER_CPU SLURM_JOB_GPUS SLURM_JOB_START_TIME SLURM_JOB_END_TIME
export GT_ROCM_SMI_LIBRARY=$TMP/no-rocm.so GT_NVML_LIBRARY=$GT_BUILD/fakes/nvml.so
GIB=17179869184
# What each task's driver serves (one scenario per task, so the pooled
# figures differ from either task's): GPU 0 at 90 % with 8 GB used to task
# 0, at 50 % with 10 GB to task 1; GPU 1 idle with 1 GB used.
cat >t0.json <<JSON
{"devices": [
 {"uuid": "GPU-11111111-aaaa", "total": $GIB, "samples": [{"used": 8000000000, "util": 90}]},
 {"uuid": "GPU-22222222-bbbb", "total": $GIB, "samples": [{"used": 1000000000, "util": 0}]}]}
JSON
sed 's/8000000000, "util": 90/10000000000, "util": 50/' t0.json >t1.json

task() { # RANK NODE SCENARIO, then gpu-tracker's arguments
    local rank=$1 node=$2 scenario=$3
    shift 3
    SLURM_JOB_ID=77 SLURM_STEP_ID=0 SLURMD_NODENAME="$node" SLURM_PROCID="$rank" SLURM_MEM_PER_NODE=1024 \
        SLURM_CPUS_ON_NODE=2 SLURM_GPUS_ON_NODE=2 FAKE_NVML_SCENARIO=$TMP/$scenario \
        "$GT_BIN" --quiet --st=0.05 --gru=megabytes "$@" -- "$W/touch_mem" 1 0.3 >/dev/null 2>>err.txt ||
        fail "task $rank: $(cat err.txt)"
}

for ext in csv sqlite; do
    rm -f t-*
    task 0 n1 t0.json --per-gpu --tf=t-0.$ext
    task 1 n1 t1.json --per-gpu --guuids=GPU-11111111-aaaa --tf=t-1.$ext
    task 2 n2 t0.json --tf=t-2.$ext
    "$GT_BIN" merge -f json t-0.$ext t-1.$ext t-2.$ext >m.json || fail "$ext: merge"
    "$GT_BIN" merge t-0.$ext t-1.$ext t-2.$ext >m.txt || fail "$ext: merge (text)"
    # The rows of GPU 0 in each task's table: the truth the pooled mean is
    # taken over.
    rows() { # FILE INDEX
        if [ $ext = csv ]; then awk -F, -v g="$2" 'NR > 1 && $2 == g' "${1%.csv}.gpus.csv" | wc -l
        else sqlite3 "$1" "SELECT count(*) FROM gpus WHERE gpu_index = $2"; fi
    }
    n0=$(rows t-0.$ext 0) n1=$(rows t-1.$ext 0) b=$(rows t-0.$ext 1)
    [ "$n0" -gt 0 ] && [ "$n1" -gt 0 ] && [ "$b" = "$n0" ] || fail "$ext: rows $n0 $n1 $b"
    node='.efficiency.nodes[] | select(.name == "n1") | .gpu'
    jq -e "$node | .files_with_gpus == 2 and .files_with_per_gpu_rows == 2 and .note == null and
           (.devices | length) == 2" m.json >/dev/null || fail "$ext: n1: $(jq -c "$node" m.json)"
    g0="$node.devices[0]" g1="$node.devices[1]"
    jq -e "$g0 | .index == 0 and .uuid == \"GPU-11111111-aaaa\" and .files == 2 and .samples == $((n0 + n1)) and
           .memory_peak_bytes == 10000000000 and .memory_capacity_bytes == $GIB" m.json >/dev/null ||
        fail "$ext: GPU 0: $(jq -c "$g0" m.json)"
    want=$(awk -v a="$n0" -v b="$n1" 'BEGIN { printf "%.9f", (90 * a + 50 * b) / (a + b) }')
    [ "$(jq -r "$g0.mean_utilization_percent * 1e9 | round / 1e9" m.json | awk '{ printf "%.9f", $1 }')" = "$want" ] ||
        fail "$ext: GPU 0 mean $(jq -r "$g0.mean_utilization_percent" m.json), rows $n0 at 90 and $n1 at 50: $want"
    jq -e "$g1 | .index == 1 and .uuid == \"GPU-22222222-bbbb\" and .files == 1 and .mean_utilization_percent == 0 and
           .memory_peak_bytes == 1000000000" m.json >/dev/null || fail "$ext: GPU 1: $(jq -c "$g1" m.json)"
    [ "$(jq -r '.efficiency.nodes[] | select(.name == "n1") | .advice.gpus' m.json)" = "1 of the 2 GPUs (SLURM_GPUS_ON_NODE) stayed idle or nearly (mean utilization below 5 %): GPU 1 (GPU-22222222-bbbb) 0.0 %, memory peak 5.8 % of capacity; ask for 1 GPU next time" ] ||
        fail "$ext: advice: $(jq -c '.efficiency.nodes[0].advice' m.json)"
    # n2 tracked its GPUs without --per-gpu.
    jq -e '.efficiency.nodes[] | select(.name == "n2") | .gpu | .files_with_gpus == 1 and
           .files_with_per_gpu_rows == 0 and (.devices | length) == 0 and (.note | test("need --per-gpu"))' m.json \
        >/dev/null || fail "$ext: n2: $(jq -c '.efficiency.nodes[1].gpu' m.json)"
    grep -q '^      GPU 1 (GPU-22222222-bbbb): utilization \[ *0%\] 0.000 %, memory peak 953.7 MiB of 16.0 GiB' m.txt ||
        fail "$ext: text: $(grep GPU m.txt)"
    grep -q "^      GPU figures: its files tracked GPUs but hold no per-GPU rows: each GPU's figures need --per-gpu" m.txt ||
        fail "$ext: text n2: $(sed -n '/^Efficiency/,$p' m.txt)"
done
echo ok
