# SPDX-License-Identifier: MIT
# K children each touching M MiB: descendants' memory and thread counts.
. "$(dirname "$0")/_lib.sh"
# The children hold their memory until three more rows are in the tracking
# file, so samples see all K whole however slowly a loaded machine samples.
K=4 MIB=20
"$GT_BIN" --st=0.05 --ru=bytes -f json --tf=t.csv -- "$W/tree" $K rows=3@t.csv $MIB >out.txt
json_report out.txt >r.json
[ "$(jget r.json .cpu_utilization.main_n_threads)" = 1 ] || fail "main threads"
[ "$(jget r.json .cpu_utilization.descendants_n_threads)" = $K ] || fail "descendant threads"
[ "$(jget r.json .cpu_utilization.combined_n_threads)" = $((K + 1)) ] || fail "combined threads"
N=$((K * MIB * 1048576))
within "$(jget r.json .max_ram.descendants.private_rss)" $((N * 97 / 100)) $((N * 110 / 100)) "descendants private RSS"
within "$(jget r.json .peak_ram.largest_descendant)" $((MIB * 1048576)) $((MIB * 1048576 * 13 / 10)) "largest descendant peak"
# Shared library pages mapped by all children count once, not K times.
d_shared=$(jget r.json .max_ram.descendants.shared_rss)
c_shared=$(jget r.json .max_ram.combined.shared_rss)
m_shared=$(jget r.json .max_ram.main.shared_rss)
awk -v d="$d_shared" -v c="$c_shared" -v m="$m_shared" 'BEGIN { exit !(c <= 2 * m + 1 && d <= 2 * m + 1) }' ||
    fail "shared RSS not deduplicated: main $m_shared desc $d_shared combined $c_shared"

# Children forked by short-lived threads other than the main one: found
# through each thread's own children list while the threads come and go.
K=3 MIB=10
"$GT_BIN" --st=0.01 --ru=bytes -f json --disable-logs --tf=t2.csv -- "$W/thread_fork" $K $MIB rows=3@t2.csv >out.txt
json_report out.txt >r.json
N=$((MIB * 1048576))
peak=$(jget r.json .peak_ram.largest_descendant)
within "$peak" "$N" $((N * 13 / 10)) "children of threads: peak"
# One child at a time: the descendants' private RSS at one sample is one
# child's, at most its own high-water mark (its touched MiB and what its
# libraries and stack hold privately).
within "$(jget r.json .max_ram.descendants.private_rss)" $((N * 97 / 100)) "$peak" "children of threads"
[ "$(jget r.json .cpu_utilization.descendants_n_threads)" = 1 ] || fail "children of threads: descendant threads"
[ "$(jget r.json .cpu_utilization.main_n_threads)" = 2 ] || fail "children of threads: main threads"
