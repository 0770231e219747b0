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
# overlap however slowly a loaded machine starts them --
t0=$(date +%s.%N)
$IN_CTL srun -N2 -n4 --ntasks-per-node=2 "$GT_BIN" --quiet --st=0.1 --ru=megabytes \
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
[ "$(sed -n 2p "out/track-$job-n2-3.csv" | cut -d, -f10-)" = "n2,$job,0,3" ] ||
    fail "static data of task 3: $(head -n 2 "out/track-$job-n2-3.csv")"
[ "$(jq -c '[.nodes[] | [.host, .files]]' merged.json)" = \
    "[[\"n1\",[\"track-$job-n1-0\",\"track-$job-n1-1\"]],[\"n2\",[\"track-$job-n2-2\",\"track-$job-n2-3\"]]]" ] ||
    fail "nodes: $(jq -c '[.nodes[] | [.host, .files]]' merged.json)"
[ "$(jq -c '[.files[] | .task]' merged.json)" = '["0","1","2","3"]' ] || fail "tasks: $(jq -c '[.files[] | .task]' merged.json)"
for n in 0 1; do
    lo=$(awk -v n=$n -v m=$mib 'BEGIN { print (n ? 70 : 30) * m }')
    within "$(jget merged.json ".nodes[$n].peak.ram")" "$lo" "$(awk -v lo="$lo" 'BEGIN { print lo + 16 }')" "node $n RAM (MB)"
    within "$(jget merged.json ".nodes[$n].cpu_seconds")" 0.8 1.75 "node $n CPU seconds (2 x 0.5 s burnt)"
done
"$GT_BIN" merge out >merged.txt
grep -q "^Job (4 tracking files on 2 nodes" merged.txt || fail "text report: $(cat merged.txt)"

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
