# SPDX-License-Identifier: MIT
# A child that touches exactly N MiB: private RSS within a few percent of N,
# and the kernel's peak at least N.
. "$(dirname "$0")/_lib.sh"
MIB=200
"$GT_BIN" --st=0.02 --ru=bytes -f json -- "$W/touch_mem" $MIB 0.5 >out.txt
json_report out.txt >r.json
N=$((MIB * 1048576))
within "$(jget r.json .max_ram.main.private_rss)" $((N * 98 / 100)) $((N * 105 / 100)) "main private RSS"
within "$(jget r.json .max_ram.combined.total_rss)" "$N" $((N * 110 / 100)) "combined total RSS"
within "$(jget r.json .peak_ram.main)" "$N" $((N * 110 / 100)) "main peak RSS"
[ "$(jget r.json '.max_ram.descendants.total_rss == 0')" = true ] || fail "no descendants expected"
[ "$(jget r.json .cpu_utilization.main_n_threads)" = 1 ] || fail "one thread expected"
within "$(jget r.json .compute_time.time)" 0.0001 0.01 "compute time in hours"
