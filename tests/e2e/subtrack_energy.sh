# SPDX-License-Identifier: MIT
# Per-code-block energy in sub-track analyze, from gpu-tracker's cumulative
# energy columns: each call's joules between its start and stop
# (interpolated at both ends), summed and averaged over the calls.
. "$(dirname "$0")/_lib.sh"
use_hooks # GT_SYSFS_ROOT
R="$GT_REF/sub-tracking"

# Exact figures from a file written by hand: cumulative CPU joules 0, 5, 5,
# 25 and DRAM joules 0, 1, 2, 3 at t = 100, 101, 102, 104; the GPU column is
# empty (unavailable).
{
    sed -n 1,2p "$R/tracking.csv"
    echo "$(sed -n 3p "$R/tracking.csv"),cpu_energy_joules,dram_energy_joules,gpu_energy_joules"
    cells=$(printf '1.0,%.0s' $(seq 21))
    echo "${cells}100.0,0.0,0.0,"
    echo "${cells}101.0,5.0,1.0,"
    echo "${cells}102.0,5.0,2.0,"
    echo "${cells}104.0,25.0,3.0,"
} >t.csv
cat >m.csv <<'CSV'
process_id,code_block_name,position,timestamp
7,A,0,100.5
7,A,1,103.0
7,A,0,101.0
7,A,1,102.0
7,B,0,90.0
7,B,1,95.0
CSV
"$GT_BIN" sub-track analyze --tf=t.csv --stf=m.csv -f json -o r.json
e() { jq -c --arg n "$1" ".code_block_results[] | select(.name == \$n) | .energy.$2" r.json; }
# A's overlapping marks pair by time, as the Python package pairs them:
# calls 100.5-101.0 and 102.0-103.0.  CPU: 5 - 2.5 = 2.5 J, then 15 - 5 = 10 J.
[ "$(e A cpu_energy_joules)" = '{"total":12.5,"mean":6.25,"calls":2}' ] || fail "A cpu: $(e A cpu_energy_joules)"
# DRAM: 1 - 0.5 = 0.5 J, then 2.5 - 2 = 0.5 J.
[ "$(e A dram_energy_joules)" = '{"total":1,"mean":0.5,"calls":2}' ] || fail "A dram: $(e A dram_energy_joules)"
[ "$(e A gpu_energy_joules)" = '{"total":null,"mean":null,"calls":0}' ] || fail "A gpu: $(e A gpu_energy_joules)"
# B lies before the first timepoint: unavailable, not 0.
[ "$(e B cpu_energy_joules)" = '{"total":null,"mean":null,"calls":0}' ] || fail "B: $(e B cpu_energy_joules)"
[ "$(jq -c .energy r.json)" = '{"cpu_energy_joules":25,"dram_energy_joules":3,"gpu_energy_joules":null}' ] ||
    fail "overall: $(jq -c .energy r.json)"
grep -Eq '^ +"total": 12\.5,$' r.json || fail "JSON spelling: $(cat r.json)"
# The energy columns are not usage measures.
[ "$(jq '.overall | has("cpu_energy_joules")' r.json)" = false ] || fail "energy column among the measures"
[ "$(jq '.overall | length' r.json)" = 21 ] || fail "measures: $(jq -c '.overall | keys' r.json)"
"$GT_BIN" sub-track analyze --tf=t.csv --stf=m.csv >r.txt
grep -q '^	Energy (joules):$' r.txt || fail "text: $(cat r.txt)"
grep -Eq '^		cpu_energy_joules +12\.5 +6\.25 +2$' r.txt || fail "text A: $(grep -A4 'Energy (joules)' r.txt)"
grep -Eq '^	cpu_energy_joules +25\.0$' r.txt || fail "text overall: $(sed -n '/^Overall Energy/,$p' r.txt)"

# End to end: a job marks a block while the fixture RAPL counter that
# gpu-tracker reads moves by 6 J (through its wrap) inside it, and another
# block in which it does not move.
SYS=$TMP/sys
PC=$SYS/class/powercap/intel-rapl:0
mkdir -p "$PC"
echo package-0 >"$PC/name"
echo 1000000000 >"$PC/max_energy_range_uj"
# Each step waits for two more samples in the tracking file (\$1), so every
# block holds samples however slowly a loaded machine takes them.
samples_waiter
cat >job.sh <<SH
mark() { echo "\$\$,\$1,\$2,\$(date +%s.%N)" >>marks.csv; }
samples() { sh "$TMP/wait_samples.sh" "\$1" 2; }
echo process_id,code_block_name,position,timestamp >marks.csv
samples "\$1"
mark quiet 0; samples "\$1"; mark quiet 1
samples "\$1"
mark work 0; samples "\$1"
printf '3000000\n' >"$PC/energy_uj"
samples "\$1"; mark work 1
samples "\$1"
SH
for ext in csv sqlite; do
    echo 997000000 >"$PC/energy_uj"
    GT_SYSFS_ROOT=$SYS "$GT_BIN" --st=0.02 --disable-logs --tf="j.$ext" -- sh job.sh "j.$ext" >/dev/null
    "$GT_BIN" sub-track analyze --tf="j.$ext" --stf=marks.csv -f json -o r.json
    [ "$(e work cpu_energy_joules)" = '{"total":6,"mean":6,"calls":1}' ] || fail "$ext work: $(e work cpu_energy_joules)"
    [ "$(e quiet cpu_energy_joules)" = '{"total":0,"mean":0,"calls":1}' ] || fail "$ext quiet: $(e quiet cpu_energy_joules)"
    jq -e '.energy.cpu_energy_joules == 6' r.json >/dev/null || fail "$ext overall: $(jq -c .energy r.json)"
    # The power columns after the energy columns are neither measures nor
    # energy; every column of the table before them but timestamp is a
    # measure (gpu-tracker's own too).
    [ "$(jq -c '.energy | keys' r.json)" = '["cpu_energy_joules","dram_energy_joules","gpu_energy_joules"]' ] ||
        fail "$ext energy: $(jq -c '.energy | keys' r.json)"
    [ "$(jq -r '.overall | keys[]' r.json | LC_ALL=C sort)" = "$(columns | tr , '\n' | grep -vx timestamp | LC_ALL=C sort)" ] ||
        fail "$ext measures: $(jq -c '.overall | keys' r.json)"
done
