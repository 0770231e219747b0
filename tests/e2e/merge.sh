#!/bin/bash
# SPDX-License-Identifier: MIT
# File-name patterns from the Slurm environment (--tf, -o) and the merge
# command over the files they give, without a Slurm cluster: each task's
# environment is set by hand as Slurm sets it.
. "$(dirname "$0")/_lib.sh"

task() { # RANK NODE, then gpu-tracker's arguments
    local rank=$1 node=$2
    shift 2
    env -u SLURM_MEM_PER_CPU -u SLURM_GPUS_ON_NODE -u SLURM_JOB_GPUS SLURM_JOB_ID=77 SLURM_STEP_ID=3 \
        SLURMD_NODENAME="$node" SLURM_PROCID="$rank" SLURM_STEP_NUM_TASKS=4 SLURM_STEP_NUM_NODES=2 \
        SLURM_MEM_PER_NODE=1024 SLURM_CPUS_ON_NODE=2 SLURM_CPUS_PER_TASK=1 SLURM_JOB_NUM_NODES=2 \
        SLURM_JOB_START_TIME=1700000000 SLURM_JOB_END_TIME=1700003600 "$GT_BIN" --quiet "$@"
}

# Four tasks on two nodes, each with its own tracking file and report;
# task r holds (r+1)*10 MiB until three more rows are in its file, however
# slowly a loaded machine samples.
mkdir job
for r in 0 1 2 3; do
    task "$r" "n$((r / 2 + 1))" --st=0.05 --ru=megabytes --tf="job/t-%j.%s-%N-%t.csv" -o "job/r-%t.txt" \
        -- "$W/touch_mem" $(((r + 1) * 10)) "rows=3@job/t-77.3-n$((r / 2 + 1))-$r.csv" >/dev/null 2>&1 &
done
wait
for f in job/t-77.3-n1-0.csv job/t-77.3-n1-1.csv job/t-77.3-n2-2.csv job/t-77.3-n2-3.csv job/r-0.txt job/r-3.txt; do
    [ -s "$f" ] || fail "no file $f: $(ls job)"
done
grep -q 'Max RAM' job/r-0.txt || fail "report r-0.txt"
# Each file says where it was made, and the job's request on its node as
# Slurm's variables give it, after the Python package's columns.
[ "$(head -n 1 job/t-77.3-n2-3.csv | cut -d, -f10-)" = host,slurm_job_id,slurm_step_id,slurm_task_id,slurm_mem_per_node,slurm_mem_per_cpu,slurm_cpus_on_node,slurm_gpus_on_node,slurm_job_gpus,slurm_cpus_per_task,slurm_job_num_nodes,slurm_job_start_time,slurm_job_end_time ] ||
    fail "static header: $(head -n 1 job/t-77.3-n2-3.csv)"
[ "$(sed -n 2p job/t-77.3-n2-3.csv | cut -d, -f10-)" = n2,77,3,3,1024,,2,,,1,2,1700000000,1700003600 ] ||
    fail "static row: $(sed -n 2p job/t-77.3-n2-3.csv)"

# Two tasks per node, one file per node: refused before anything runs.
set +e
task 0 n1 --tf="node-%N.csv" -- touch ran 2>err; rc=$?
set -e
[ "$rc" = 2 ] || fail "shared file: exit $rc"
grep -q "would all write this one file" err || fail "shared file: $(cat err)"
[ ! -e ran ] && [ ! -e node-n1.csv ] || fail "refused but ran"
# "%%t" is a literal "%t", no task rank: refused as well.
set +e
task 0 n1 --tf="t-%j-%%t.csv" -- touch ran 2>err; rc=$?
set -e
[ "$rc" = 2 ] && grep -q "would all write this one file" err || fail "literal %t: exit $rc $(cat err)"
[ ! -e ran ] && [ ! -e t-77-%t.csv ] || fail "literal %t: refused but ran"
# srun -n1: the one task has the file to itself.
SLURM_JOB_ID=78 SLURM_STEP_NUM_TASKS=1 SLURM_STEP_NUM_NODES=1 "$GT_BIN" --quiet --tf="t-%j.csv" -- true >/dev/null 2>&1 ||
    fail "one task refused"
[ -s t-78.csv ] || fail "t-78.csv"
# One task per node: a file per node is enough.
SLURM_STEP_NUM_TASKS=2 SLURM_STEP_NUM_NODES=2 SLURMD_NODENAME=n1 "$GT_BIN" --quiet --tf="node-%N.csv" -- true >/dev/null 2>&1 ||
    fail "one task per node refused"
[ -s node-n1.csv ] || fail "node-n1.csv"
# A fixed name in a multi-task step is refused too, for the report as well.
set +e
task 1 n1 -o report.txt -- true 2>err; rc=$?
set -e
[ "$rc" = 2 ] && grep -q -- "--output 'report.txt'" err || fail "fixed report name: exit $rc $(cat err)"
# Outside Slurm: a pattern that needs a variable is an error; %% and %h work.
for bad in 't-%j.csv:SLURM_JOB_ID' 't-%q.csv:unknown pattern' 't-%.csv:unknown pattern'; do
    set +e
    env -u SLURM_JOB_ID "$GT_BIN" --quiet --tf="${bad%%:*}" -- true >/dev/null 2>err; rc=$?
    set -e
    [ "$rc" = 2 ] && grep -q "${bad#*:}" err || fail "${bad%%:*}: exit $rc $(cat err)"
done
"$GT_BIN" --quiet --tf="p-100%%-%h.csv" -- true >/dev/null 2>&1
[ -s "p-100%-$(hostname).csv" ] || fail "%% and %h: $(ls)"

# The merge: four files of 20 MB each.  On a 60-second grid the four runs
# fall in one step however the machine schedules them, so the job's peak is
# exactly the sum of the four files' peaks (the unit test covers finer grids).
"$GT_BIN" merge -f json -o merged.json --align=60 job >/dev/null
[ "$(jget merged.json '.files | length')" = 4 ] || fail "merged files: $(jget merged.json '.files | length')"
[ "$(jget merged.json '.ram_unit')" = megabytes ] || fail "unit"
within "$(jget merged.json '.files[0].peak.ram')" 10 20 "one task's RAM"
jq -e '(.job.peak.ram - ([.files[].peak.ram] | add)) | fabs < 1e-9' merged.json >/dev/null ||
    fail "job RAM peak $(jget merged.json .job.peak.ram) is not the sum of the files' peaks"
jget merged.json '.files[].name' | grep -qx 't-77.3-n2-3' || fail "names"
# Two nodes of two tasks each: a node's peak is the sum of its tasks' (10 +
# 20 MiB on n1, 30 + 40 on n2, each with up to 8 MB of the program itself).
[ "$(jget merged.json '.job.nodes')" = 2 ] || fail "nodes: $(jget merged.json '.job.nodes')"
[ "$(jq -c '[.nodes[] | [.host, .files]]' merged.json)" = '[["n1",["t-77.3-n1-0","t-77.3-n1-1"]],["n2",["t-77.3-n2-2","t-77.3-n2-3"]]]' ] ||
    fail "node files: $(jq -c '[.nodes[] | [.host, .files]]' merged.json)"
within "$(jget merged.json '.nodes[0].peak.ram')" 31.4 47.5 "n1 RAM (MB)"
within "$(jget merged.json '.nodes[1].peak.ram')" 73.4 89.5 "n2 RAM (MB)"
jq -e '[.nodes[] | .peak.ram] | add | (. - (input | .job.peak.ram)) | fabs < 1e-9' merged.json merged.json >/dev/null ||
    fail "the job's RAM peak is not the sum of the nodes'"
[ "$(jq -c '[.files[] | .task]' merged.json)" = '["0","1","2","3"]' ] || fail "tasks: $(jq -c '[.files[] | .task]' merged.json)"
# Efficiency: each node against the request its files record (1 GiB, 2
# cores, 1 CPU per task, 2 nodes, a 1-hour limit), from the node's own figures above; its sampled figures are lower
# bounds, so no idle-core advice, and the memory advice says so.
for k in 0 1; do
    e=".efficiency.nodes[$k]"
    [ "$(jget merged.json "$e.request.memory_source")" = SLURM_MEM_PER_NODE ] || fail "node $k: $(jq -c "$e" merged.json)"
    [ "$(jget merged.json "$e.request.memory_bytes")" = 1073741824 ] || fail "node $k request"
    [ "$(jget merged.json "$e.request.cores")" = 2 ] || fail "node $k cores"
    [ "$(jq -c "$e.request | [.cpus_per_task, .nodes, .time_limit_seconds, .time_limit_source]" merged.json)" = \
        '[1,2,3600,"SLURM_JOB_END_TIME - SLURM_JOB_START_TIME"]' ] || fail "node $k request: $(jq -c "$e" merged.json)"
    [ "$(jq -r "$e.advice.time" merged.json)" = null ] || fail "node $k time advice, far from the limit"
    peak=$(jget merged.json ".nodes[$k].peak.ram")
    within "$(jget merged.json "$e.memory_peak_bytes")" "$(awk -v p="$peak" 'BEGIN { printf "%.17g", p * 1e6 - 1 }')" \
        "$(awk -v p="$peak" 'BEGIN { printf "%.17g", p * 1e6 + 1 }')" "node $k peak in bytes"
    within "$(jget merged.json "$e.memory_percent_of_request")" "$(awk -v p="$peak" 'BEGIN { printf "%.17g", (p * 1e6 - 1) / 10737418.24 }')" \
        "$(awk -v p="$peak" 'BEGIN { printf "%.17g", (p * 1e6 + 1) / 10737418.24 }')" "node $k percent"
    [ "$(jget merged.json "$e.advised_request")" = --mem=128M ] || fail "node $k advised: $(jq -c "$e" merged.json)"
    jget merged.json "$e.advice.memory" | grep -q "at least (a lower bound).*ask for --mem=128M" ||
        fail "node $k memory advice: $(jq -c "$e.advice" merged.json)"
    [ "$(jq -r "$e.advice.cores" merged.json)" = null ] || fail "node $k cores advice from sampled CPU"
    within "$(jget merged.json "$e.cpu_efficiency_percent")" 0 100 "node $k CPU efficiency"
    jq -e "($e.cpu_efficiency_percent - 100 * .nodes[$k].cpu_seconds / (2 * $e.wall_seconds) | fabs) < 1e-9" \
        merged.json >/dev/null || fail "node $k CPU efficiency: $(jq -c "$e" merged.json)"
done
jq -e '(.efficiency.cpu_efficiency_percent - 100 * ([.efficiency.nodes[].cpu_seconds] | add) /
        ([.efficiency.nodes[] | 2 * .wall_seconds] | add)) | fabs < 1e-9' merged.json >/dev/null ||
    fail "job CPU efficiency: $(jq -c .efficiency merged.json)"
# A file made outside Slurm records no node: it counts as a node of its own.
env -u SLURM_JOB_ID -u GT_SUBTRACK_HOST "$GT_BIN" --quiet --tf=job/plain.csv -- true >/dev/null 2>&1
[ "$(head -n 1 job/plain.csv | cut -d, -f10)" = "" ] || fail "host outside Slurm: $(head -n 1 job/plain.csv)"
"$GT_BIN" merge -f json -o mixed.json --align=60 job >/dev/null
[ "$(jq -c '[.job.nodes, .job.files_without_node, (.nodes[] | select(.host == null) | .name)]' mixed.json)" = '[3,1,"plain"]' ] ||
    fail "file without a node: $(jq -c .job mixed.json)"
"$GT_BIN" merge job >mixed.txt
grep -q '1 of the files record no host' mixed.txt || fail "text: $(cat mixed.txt)"
# Its node records no request: the machine's capacity, said so.
grep -q '^   plain: .* (machine capacity), [0-9]* cores (machine capacity)$' mixed.txt || fail "plain: $(cat mixed.txt)"
grep -q '^      Advice (memory): 1.0 GiB requested (SLURM_MEM_PER_NODE), ' mixed.txt || fail "text advice: $(cat mixed.txt)"
rm job/plain.csv
"$GT_BIN" merge job/t-77.3-n1-0.csv job/t-77.3-n2-2.csv >text.txt
grep -q '^Job (2 tracking files' text.txt || fail "text: $(cat text.txt)"
grep -q 't-77.3-n2-2' text.txt || fail "text rows"

# Errors: no input, an empty directory, a directory among files, a bad file.
mkdir empty
for args in "" "empty" "job job/r-0.txt" "--align=0 job" "-f xml job"; do
    set +e
    # shellcheck disable=SC2086
    "$GT_BIN" merge $args >/dev/null 2>err; rc=$?
    set -e
    [ "$rc" = 2 ] && [ -s err ] || fail "merge $args: exit $rc"
done
set +e
"$GT_BIN" merge job/r-0.txt >/dev/null 2>err; rc=$?
set -e
[ "$rc" = 2 ] && grep -q "r-0.txt" err || fail "merge of a report: exit $rc $(cat err)"
echo "ok"
