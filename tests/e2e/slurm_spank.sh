#!/bin/bash
# SPDX-License-Identifier: MIT
# The SPANK plugin on a real Slurm (tests/e2e/_slurm.sh): `srun
# --gpu-tracker=DIR` on 2 nodes, 4 tasks, tracks every task from slurmstepd
# into DIR/<job>.<step>/; the files hold the tasks' figures, not
# slurmstepd's; without DIR they go to the job's working directory; a
# directory that cannot be made costs the job nothing; sbatch takes the
# option as well.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/_lib.sh"

PLUGIN=$GT_BUILD/gpu_tracker_spank.so
[ -f "$PLUGIN" ] || skip "no SPANK plugin in $GT_BUILD: it is built where libslurm-dev is installed, and not by sanitizer builds (slurmstepd cannot load them)"
# "required", so that a plugin Slurm cannot load fails the test; users write
# "optional", so that it never stops a job.
SLURM_PLUGSTACK="required $PLUGIN st=0.1"
. "$HERE/_slurm.sh"

$IN_CTL srun --help 2>&1 | grep -q -- '--gpu-tracker' || fail "srun --help lacks --gpu-tracker"
mkdir -p spank wd sb
# Each task holds its memory until every task's file has a row with it,
# however slowly a loaded machine starts and samples them.
$IN_CTL srun -N2 -n4 --ntasks-per-node=2 --gpu-tracker="$TMP/spank" \
    sh -c "$W/touch_mem \$(((SLURM_PROCID + 1) * 10)) file=$TMP/spank/release" >srun.out 2>&1 &
srun_pid=$!
# all_held: four files DIR/<job>.0/<node>.<task>.csv, each with a row where
# the task holds its (r+1)*10 MiB (in GB).
all_held() {
    local f r n=0
    for f in spank/*.0/*.csv; do
        [ -f "$f" ] || continue
        r=${f%.csv}
        r=${r##*.}
        awk -F, -v want="$(awk -v r="$r" 'BEGIN { print (r + 1) * 10 * 1.048576 / 1000 }')" \
            'FNR > 3 && $3 >= want { found = 1 } END { exit !found }' "$f" && n=$((n + 1))
    done
    [ $n = 4 ]
}
wait_for all_held
touch spank/release
wait $srun_pid || fail "srun: $(cat srun.out)"
# Nothing of a GPU library in the job's output: a ROCm SMI library installed
# on a node without an AMD GPU is not initialized (its stderr lines would be).
! grep -E 'Failed to open drm root directory|Exception caught' srun.out ||
    fail "a GPU library's lines in the job's output: $(cat srun.out)"
d=$(ls -d spank/*.0 2>/dev/null | head -n 1)
[ -n "$d" ] || fail "no DIR/<job>.0: $(ls -R spank)"
for f in n1.0 n1.1 n2.2 n2.3; do
    [ -s "$d/$f.csv" ] || fail "no $d/$f.csv: $(ls "$d")"
    jq -e '.max_ram' "$d/$f.json" >/dev/null || fail "report $d/$f.json"
done
"$GT_BIN" merge -f json -o merged.json "$d"
[ "$(jget merged.json '.files | length')" = 4 ] || fail "merged $(jget merged.json '.files | length') files"
# Task r held (r+1)*10 MiB; the plugin's process (slurmstepd) holds more
# than the 4 MB of slack, so its memory would show.
for r in 0 1 2 3; do
    f=$(jget merged.json ".files[] | select(.name | endswith(\".$r\")) | .peak.ram")
    within "$f" "$(awk -v r=$r 'BEGIN { print (r + 1) * 10 * 1.048576 / 1000 }')" \
        "$(awk -v r=$r 'BEGIN { print ((r + 1) * 10 * 1.048576 + 4) / 1000 }')" "task $r RAM (GB)"
done
# Each file names its node and task, so merge finds two nodes of two tasks.
[ "$(jq -c '[.nodes[] | [.host, (.files | length)]], [.files[] | .task]' merged.json | tr -d '\n')" = \
    '[["n1",2],["n2",2]]["0","1","2","3"]' ] || fail "nodes: $(jq -c '.nodes, .files' merged.json)"
# ... and its job and step, as a file written by the library under srun does.
head -n 2 "$d/n2.3.csv" >static.csv
for c in slurm_job_id slurm_step_id; do
    v=$(awk -F, -v c=$c 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i } NR == 2 && k { print $k }' static.csv)
    want=${d##*/}; want=$([ $c = slurm_job_id ] && echo "${want%%.*}" || echo "${want#*.}")
    [ "$v" = "$want" ] || fail "$c in $d/n2.3.csv: '$v', not '$want': $(cat static.csv)"
done

# Without DIR: the job's working directory.
(cd wd && timeout 120 $IN_CTL srun -N1 -n1 -t 2 --gpu-tracker true >../srun2.out 2>&1) || fail "srun: $(cat srun2.out)"
ls wd/*.0/n1.0.csv >/dev/null 2>&1 || fail "nothing in the working directory: $(ls -R wd)"
# A directory that cannot be created: the job runs and succeeds all the same.
timeout 120 $IN_CTL srun -N1 -n1 -t 2 --gpu-tracker=/proc/no/such/dir echo ran >srun3.out 2>&1 ||
    fail "job failed because of tracking: $(cat srun3.out)"
grep -q '^ran$' srun3.out || fail "job output: $(cat srun3.out)"
grep -q "error: gpu-tracker: cannot create '/proc/no/such/dir/" srun3.out || fail "no warning in the job's stderr"
# sbatch takes the option too; the batch script's step is "batch".
jid=$($IN_CTL sbatch --parsable -N1 -n1 -t 2 --gpu-tracker="$TMP/sb" -o "$TMP/sb.out" --wrap "$W/touch_mem 5 1") ||
    fail "sbatch"
job_gone() { [ -z "$($IN_CTL squeue -h -j "$jid")" ]; }
wait_for job_gone
ls sb/"$jid".batch/n1.0.csv sb/"$jid".batch/n1.0.json >/dev/null 2>&1 || fail "batch step: $(ls -R sb 2>&1)"
# Not asked for: nothing written.
(cd wd && timeout 120 $IN_CTL srun -N1 -n1 -t 2 true) || fail "plain srun"
[ "$(ls -d wd/*.* | wc -l)" = 1 ] || fail "files without --gpu-tracker: $(ls wd)"
echo "ok"
