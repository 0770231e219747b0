# SPDX-License-Identifier: MIT
# A child that touches exactly N MiB: private RSS within a few percent of N,
# and the kernel's peak at least N.
. "$(dirname "$0")/_lib.sh"
MIB=200
# The child holds its memory until three more rows are in the tracking file
# (two samples wholly while it holds it), however slowly the machine samples.
t0=$(date +%s.%N)
"$GT_BIN" --st=0.02 --ru=bytes -f json --tf=t.csv -- "$W/touch_mem" $MIB rows=3@t.csv >out.txt
t1=$(date +%s.%N)
json_report out.txt >r.json
N=$((MIB * 1048576))
within "$(jget r.json .max_ram.main.private_rss)" $((N * 98 / 100)) $((N * 105 / 100)) "main private RSS"
within "$(jget r.json .max_ram.combined.total_rss)" "$N" $((N * 110 / 100)) "combined total RSS"
within "$(jget r.json .peak_ram.main)" "$N" $((N * 110 / 100)) "main peak RSS"
[ "$(jget r.json '.max_ram.descendants.total_rss == 0')" = true ] || fail "no descendants expected"
[ "$(jget r.json .cpu_utilization.main_n_threads)" = 1 ] || fail "one thread expected"
# Compute time in hours: at least the span of the samples, at most the
# run's wall time as measured here.
span=$(awk -F, 'NR == 4 { a = $22 } NR > 3 { b = $22 } END { printf "%.9f", (b - a) / 3600 }' t.csv)
within "$(jget r.json .compute_time.time)" "$span" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.9f", (b - a) / 3600 }')" \
    "compute time in hours"
