#!/bin/bash
# SPDX-License-Identifier: MIT
# What `merge` takes as input: the side files that --per-process and
# --per-gpu write beside CSV tracking files (runs of the real binary, as
# two Slurm tasks), a file given twice, and crafted files whose numbers no
# tracker writes (refused with the file, sample and column, never summed).
. "$(dirname "$0")/_lib.sh"
# One fake GPU, so the per-GPU side files have rows.
export GT_NVML_LIBRARY="$GT_BUILD/fakes/nvml.so" GT_ROCM_SMI_LIBRARY="$TMP/no-rocm-smi.so"
export FAKE_NVML_SCENARIO="$TMP/nvml.json" FAKE_NVML_LOG="$TMP/nvml.log"
cat >nvml.json <<'JSON'
{"devices": [{"uuid": "GPU-11111111-aaaa", "total": 17179869184,
  "samples": [{"used": 1000000000, "util": 30, "power_mw": 50000, "energy_mj": 7000}]}]}
JSON

# expect_refused WHAT TEXT ARGS...: merge ARGS exits 2 with TEXT on stderr.
expect_refused() {
    local what=$1 text=$2 rc
    shift 2
    set +e
    "$GT_BIN" merge "$@" >out 2>err
    rc=$?
    set -e
    [ "$rc" = 2 ] && grep -qF -- "$text" err || fail "$what: exit $rc, stderr: $(cat err)"
}

# Two tasks on two nodes, the documented Slurm workflow with both side files.
mkdir job
for r in 0 1; do
    env SLURM_JOB_ID=77 SLURM_STEP_ID=0 SLURMD_NODENAME="n$r" SLURM_PROCID="$r" SLURM_STEP_NUM_TASKS=2 \
        SLURM_STEP_NUM_NODES=2 "$GT_BIN" --quiet --st=0.05 --per-process --per-gpu --tf="job/t-%j-%N-%t.csv" \
        -- "$W/touch_mem" $(((r + 1) * 10)) 0.3 >/dev/null 2>&1 &
done
wait
for f in t-77-n0-0 t-77-n1-1; do
    for side in processes gpus; do
        [ "$(wc -l <"job/$f.$side.csv")" -ge 2 ] || fail "no rows in job/$f.$side.csv: $(ls job)"
    done
done
# The directory: its tracking files, not their side files.
"$GT_BIN" merge -f json --align=60 job >dir.json 2>err || fail "merge of the directory: $(cat err)"
[ "$(jq -c '[.files[].name]' dir.json)" = '["t-77-n0-0","t-77-n1-1"]' ] || fail "files: $(jq -c '[.files[].name]' dir.json)"
[ ! -s err ] || fail "merge of the directory said: $(cat err)"
# A glob gives the side files too, beside their tracking files: the same report.
"$GT_BIN" merge -f json --align=60 job/*.csv >glob.json 2>err || fail "merge of job/*.csv: $(cat err)"
cmp -s dir.json glob.json || fail "job/*.csv: $(diff dir.json glob.json)"
[ ! -s err ] || fail "merge of job/*.csv said: $(cat err)"
# A side file named without its tracking file: what it is, and what to give.
expect_refused "a per-process file alone" \
    "'job/t-77-n0-0.processes.csv' is not a tracking file: it is the 'processes' table that --per-process writes beside tracking file 'job/t-77-n0-0.csv'" \
    job/t-77-n0-0.processes.csv
expect_refused "a per-GPU file beside another task's tracking file" \
    "it is the 'gpus' table that --per-gpu writes beside tracking file 'job/t-77-n1-1.csv'" \
    job/t-77-n0-0.csv job/t-77-n1-1.gpus.csv
expect_refused "only side files" "is not a tracking file" job/*.processes.csv
# A task that died before its first sample leaves header-only side files;
# one with only side files left is no tracking file at all.
head -n 1 job/t-77-n0-0.processes.csv >job/t-77-n2-2.processes.csv
head -n 1 job/t-77-n0-0.gpus.csv >job/t-77-n2-2.gpus.csv
"$GT_BIN" merge -f json --align=60 job >dir2.json 2>err || fail "header-only side files: $(cat err)"
cmp -s dir.json dir2.json || fail "header-only side files: $(diff dir.json dir2.json)"
expect_refused "a header-only side file" "--per-process writes beside tracking file 'job/t-77-n2-2.csv'" \
    job/t-77-n2-2.processes.csv
mkdir sides
cp job/*.processes.csv job/*.gpus.csv sides/
expect_refused "a directory of side files" "holds no tracking file" sides
# A tracking file named like a side file is still a tracking file.
cp job/t-77-n0-0.csv job/u.gpus.csv
"$GT_BIN" merge -f json --align=60 job >dir3.json 2>err || fail "u.gpus.csv: $(cat err)"
[ "$(jq -c '[.files[].name]' dir3.json)" = '["t-77-n0-0","t-77-n1-1","u.gpus"]' ] ||
    fail "u.gpus.csv: $(jq -c '[.files[].name]' dir3.json)"
rm job/u.gpus.csv job/t-77-n2-2.*

# A file given twice, however spelt (another path, a symbolic link, a hard
# link in the directory), is read once, with a warning naming both.
cp job/t-77-n0-0.csv a.csv
ln -s a.csv link.csv
"$GT_BIN" merge -f json --align=60 a.csv >once.json
"$GT_BIN" merge -f json --align=60 a.csv a.csv ./a.csv link.csv >twice.json 2>err
cmp -s once.json twice.json || fail "a file given twice: $(diff once.json twice.json)"
[ "$(grep -c "warning: .* is the same file as 'a.csv': read once" err)" = 3 ] || fail "warnings: $(cat err)"
ln job/t-77-n1-1.csv job/z-hardlink.csv
"$GT_BIN" merge -f json --align=60 job >hard.json 2>err
cmp -s dir.json hard.json || fail "a hard link: $(diff dir.json hard.json)"
grep -q "'job/z-hardlink.csv' is the same file as 'job/t-77-n1-1.csv': read once" err || fail "hard link: $(cat err)"
rm job/z-hardlink.csv

# Numbers no tracker writes, in a copy of a real file: refused with the
# file, the sample and the column (under the sanitizers, with no report of
# undefined behaviour in the grid's arithmetic).
# crafted NAME COLUMN VALUE: a.csv with COLUMN of its second sample set to VALUE.
crafted() {
    awk -F, -v OFS=, -v col="$2" -v val="$3" '
        NR == 3 { for (i = 1; i <= NF; i++) if ($i == col) c = i }
        NR == 5 { $c = val }
        { print }' a.csv >"$1"
}
for bad in timestamp:1e300 timestamp:-9.2e18 timestamp:nan timestamp: combined_ram:-5 combined_ram:inf \
    combined_ram:1e308 combined_gpu_ram:-inf cpu_combined_sum_utilization_percent:-1 \
    gpu_sum_utilization_percent:1e19 cpu_energy_joules:1e300; do
    col=${bad%%:*} val=${bad#*:}
    crafted bad.csv "$col" "$val"
    expect_refused "$col = '$val'" "tracking file 'bad.csv', sample 2: " bad.csv a.csv
    grep -qF -- "$col" err || fail "$col = '$val': the message does not name the column: $(cat err)"
done
# The bounds themselves are accepted.
crafted edge.csv combined_ram 1e18
"$GT_BIN" merge -f json edge.csv >edge.json || fail "RAM of 1e18"
jq -e '.job.peak.ram == 1e18' edge.json >/dev/null || fail "RAM of 1e18: $(jget edge.json .job.peak.ram)"
echo "ok"
