#!/bin/bash
# SPDX-License-Identifier: MIT
# `srun gpu-tracker` on a real Slurm (tests/e2e/_slurm.sh): a 2-node, 4-task
# job runs `srun gpu-tracker --tf=...%N...%t` and the merged report must
# agree with what each task and each node (two tasks) was made to use; a job cancelled with scancel
# must still leave complete files.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/_lib.sh"

. "$HERE/_slurm.sh"

# -- a 2-node, 4-task job: task r holds (r+1)*10 MiB and burns 0.5 s of
# CPU; every task writes its own tracking file and report.  The tasks hold
# their memory until every task's file has a row with it, so that the four
# overlap however slowly a loaded machine starts them.  In an allocation
# (salloc, sbatch): a bare srun gives its tasks no SLURM_MEM_PER_NODE --
t0=$(date +%s.%N)
$IN_CTL salloc -N2 -n4 --ntasks-per-node=2 -c 1 --mem=400 -t 5 srun "$GT_BIN" --quiet --efficiency --st=0.1 --ru=megabytes \
    --tf="$TMP/out/track-%j-%N-%t.csv" -o "$TMP/out/report-%N-%t.json" -f json -- \
    sh -c "$W/burn 1 500 & $W/touch_mem \$(((SLURM_PROCID + 1) * 10)) file=$TMP/out/release; wait" >srun.out 2>&1 &
srun_pid=$!
# all_held: four files, each with a row where the task's descendants hold
# its (r+1)*10 MiB.
all_held() {
    local f r n=0
    for f in out/track-*.csv; do
        [ -f "$f" ] || continue
        r=${f##*-}
        r=${r%.csv}
        awk -F, -v want="$(awk -v r="$r" 'BEGIN { print (r + 1) * 10 * 1.048576 }')" \
            'FNR > 3 && $2 >= want { found = 1 } END { exit !found }' "$f" && n=$((n + 1))
    done
    [ $n = 4 ]
}
wait_for all_held
touch out/release
wait $srun_pid || fail "srun: $(cat srun.out)"
t1=$(date +%s.%N)
job=$(ls out | sed -n 's/^track-\([0-9]*\)-.*/\1/p' | head -n 1)
for f in "track-$job-n1-0" "track-$job-n1-1" "track-$job-n2-2" "track-$job-n2-3"; do
    [ -s "out/$f.csv" ] || fail "no out/$f.csv: $(ls out)"
done
"$GT_BIN" merge -f json -o merged.json out
[ "$(jget merged.json '.files | length')" = 4 ] || fail "merged $(jget merged.json '.files | length') files"
mib=1.048576
for r in 0 1 2 3; do
    f=$(jget merged.json ".files[] | select(.name | endswith(\"-$r\")) | .peak.ram")
    within "$f" "$(awk -v r=$r -v m=$mib 'BEGIN { print (r + 1) * 10 * m }')" \
        "$(awk -v r=$r -v m=$mib 'BEGIN { print (r + 1) * 10 * m + 8 }')" "task $r RAM (MB)"
done
# 100 MiB across both nodes at one time, plus up to 8 MB per task for the
# shell and the programs themselves
within "$(jget merged.json .job.peak.ram)" 104.8 137 "job RAM peak (MB)"
within "$(jget merged.json .job.cpu_seconds)" 1.6 3.5 "job CPU seconds (4 x 0.5 s burnt)"
# The job's time: at least what one file's samples span (less a microsecond
# for the rounding of the text here), at most srun's wall time measured here.
span=$(for f in out/track-*.csv; do awk -F, 'FNR == 4 { a = $22 } FNR > 3 { b = $22 } END { printf "%.9f\n", b - a - 1e-6 }' "$f"; done |
    sort -g | tail -n 1)
within "$(jget merged.json .job.compute_time_seconds)" "$span" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.9f", b - a }')" \
    "job time (s)"
[ "$(jget merged.json .job.largest_by_ram)" = "track-$job-n2-3" ] || fail "largest: $(jget merged.json .job.largest_by_ram)"
# Per node: each file records its node and task, so the two tasks of a node
# add up into it: 10 + 20 MiB on n1, 30 + 40 MiB on n2 (each task up to 8 MB
# more), and 2 x 0.5 s of CPU.
[ "$(sed -n 2p "out/track-$job-n2-3.csv" | cut -d, -f10-13)" = "n2,$job,0,3" ] ||
    fail "static data of task 3: $(head -n 2 "out/track-$job-n2-3.csv")"
# ... and the job's request on its node: --mem=400 (MiB), the node's 2 CPUs
# (select/linear gives whole nodes).
[ "$(sed -n 2p "out/track-$job-n2-3.csv" | cut -d, -f14,16)" = "400,2" ] ||
    fail "request of task 3: $(head -n 2 "out/track-$job-n2-3.csv")"
[ "$(jq -c '[.nodes[] | [.host, .files]]' merged.json)" = \
    "[[\"n1\",[\"track-$job-n1-0\",\"track-$job-n1-1\"]],[\"n2\",[\"track-$job-n2-2\",\"track-$job-n2-3\"]]]" ] ||
    fail "nodes: $(jq -c '[.nodes[] | [.host, .files]]' merged.json)"
[ "$(jq -c '[.files[] | .task]' merged.json)" = '["0","1","2","3"]' ] || fail "tasks: $(jq -c '[.files[] | .task]' merged.json)"
for n in 0 1; do
    lo=$(awk -v n=$n -v m=$mib 'BEGIN { print (n ? 70 : 30) * m }')
    within "$(jget merged.json ".nodes[$n].peak.ram")" "$lo" "$(awk -v lo="$lo" 'BEGIN { print lo + 16 }')" "node $n RAM (MB)"
    within "$(jget merged.json ".nodes[$n].cpu_seconds")" 0.8 1.75 "node $n CPU seconds (2 x 0.5 s burnt)"
done
# Efficiency: each node's RAM peak above against its 400 MiB, its CPU
# seconds against 2 cores for its span, and the --mem for next time (the
# peak plus 20 %, up to a multiple of 128 MiB: 128M for either node).
for n in 0 1; do
    e=".efficiency.nodes[$n]"
    [ "$(jget merged.json "$e.request.memory_source")" = SLURM_MEM_PER_NODE ] || fail "node $n: $(jq -c "$e" merged.json)"
    [ "$(jget merged.json "$e.request.memory_bytes")" = 419430400 ] || fail "node $n request: $(jq -c "$e" merged.json)"
    [ "$(jget merged.json "$e.request.cores")" = 2 ] || fail "node $n cores: $(jq -c "$e" merged.json)"
    [ "$(jq -c "$e.request | [.cpus_per_task, .nodes]" merged.json)" = '[1,2]' ] ||
        fail "node $n -c and nodes: $(jq -c "$e" merged.json)"
    jq -e "($e.memory_peak_bytes - .nodes[$n].peak.ram * 1e6 | fabs) <= 1 and
           ($e.memory_percent_of_request - 100 * $e.memory_peak_bytes / 419430400 | fabs) < 1e-9 and
           ($e.cpu_efficiency_percent - 100 * .nodes[$n].cpu_seconds / (2 * $e.wall_seconds) | fabs) < 1e-9" \
        merged.json >/dev/null || fail "node $n figures: $(jq -c "$e" merged.json) $(jq -c ".nodes[$n]" merged.json)"
    [ "$(jget merged.json "$e.advised_request")" = --mem=128M ] || fail "node $n advised: $(jq -c "$e" merged.json)"
    jget merged.json "$e.advice.memory" | grep -q "ask for --mem=128M next time" || fail "node $n advice"
done
"$GT_BIN" merge out >merged.txt
grep -q "^Job (4 tracking files on 2 nodes" merged.txt || fail "text report: $(cat merged.txt)"
grep -q "^   n1: 400.0 MiB (SLURM_MEM_PER_NODE), 2 cores (SLURM_CPUS_ON_NODE)$" merged.txt ||
    fail "text efficiency: $(sed -n '/^Efficiency/,$p' merged.txt)"
# Each task's own report (--efficiency) against its node's request (-c 1
# and 2 nodes recorded), its CPU time exact (getrusage of its tree, which it
# waits for): at least the 0.5 s burnt, by one thread, so 1 of the node's 2
# cores sat idle; its RAM peak, with descendants, a lower bound said so, at
# least the (r+1)*10 MiB it held, its share of the 400 MiB and the --mem
# advised from it (the peak plus 20 %, up to a multiple of 128 MiB).
for r in 0 1 2 3; do
    f=out/report-n$((r / 2 + 1))-$r.json
    jq -e '.efficiency.request.memory_bytes == 419430400 and .efficiency.request.cores == 2 and
           .efficiency.request.cpus_per_task == 1 and .efficiency.request.nodes == 2 and
           .efficiency.cpu.cpu_seconds >= 0.5 and (.efficiency.cpu.cpu_seconds_method | endswith("exact")) and
           (.efficiency.cpu.efficiency_percent - 100 * .efficiency.cpu.cpu_seconds / (2 * .efficiency.cpu.wall_seconds)
            | fabs) < 1e-9 and
           (.efficiency.memory.peak_method | endswith("lower bound")) and
           (.efficiency.memory.percent_of_request - 100 * .efficiency.memory.peak_bytes / 419430400 | fabs) < 1e-9' \
        "$f" >/dev/null || fail "task $r efficiency: $(jq -c .efficiency "$f")"
    peak=$(jget "$f" .efficiency.memory.peak_bytes)
    within "$peak" $(((r + 1) * 10 * 1048576)) 419430400 "task $r RAM peak (bytes)"
    want=$(awk -v p="$peak" 'BEGIN { n = p * 1.2 / (128 * 1048576); m = int(n); if (m < n) m++; print "--mem=" m * 128 "M" }')
    [ "$(jget "$f" .efficiency.memory.advised_request)" = "$want" ] ||
        fail "task $r advised $(jget "$f" .efficiency.memory.advised_request), expected $want"
    jget "$f" .efficiency.advice.memory | grep -q "^400.0 MiB requested (SLURM_MEM_PER_NODE), .* used at least (a lower bound), .*: ask for $want next time" ||
        fail "task $r memory advice: $(jget "$f" .efficiency.advice.memory)"
    jget "$f" .efficiency.advice.cores | grep -q "^1 of 2 allocated cores (SLURM_CPUS_ON_NODE) sat idle: .*; ask for 1 core next time$" ||
        fail "task $r cores advice: $(jget "$f" .efficiency.advice.cores)"
done

# -- a job cancelled while it runs still leaves every node's file and
# report complete (scancel's SIGTERM reaches gpu-tracker, which forwards it
# and writes its report before KillWait's SIGKILL) --
timeout 120 $IN_CTL srun -N2 -n2 -t 2 "$GT_BIN" --quiet --st=0.1 --tf="$TMP/cancel/c-%N.csv" -o "$TMP/cancel/r-%N.txt" \
    -- sleep 300 >cancel.out 2>&1 &
srun_pid=$!
wait_for lines_at_least cancel/c-n1.csv 5
wait_for lines_at_least cancel/c-n2.csv 5
$IN_CTL scancel "$($IN_CTL squeue -h -o %i | head -n 1)"
wait "$srun_pid" || true
for n in n1 n2; do
    grep -q "^Max RAM" "cancel/r-$n.txt" || fail "report of $n after scancel: $(cat "cancel/r-$n.txt" 2>&1)"
done
"$GT_BIN" merge -f json -o cancelled.json cancel
[ "$(jget cancelled.json '[.files[] | select(.samples >= 3)] | length')" = 2 ] || fail "cancelled files"
echo "ok"
