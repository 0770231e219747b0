# SPDX-License-Identifier: MIT
# --walk-budget bounds the page-table walks that split RAM into private and
# shared.  A child maps 64 MiB of its parent's shared memory once a sample
# has seen it: its RSS grows, and only a walk can tell the new pages are
# shared.  With the default budget that walk comes when the budget allows
# (at once on a quiet machine, later when earlier walks took more CPU time
# than usual): the child holds the pages until the per-process file shows
# that walk, however long that takes.  With a budget too small for any walk
# after the first, the child's split stays the first walk's (the new pages
# count as private) for as many samples as one would have needed, while its
# total is the kernel's at every sample either way.
. "$(dirname "$0")/_lib.sh"
MIB=1.048576
MAPPED=$(awk -v m=$MIB 'BEGIN { print 64 * m }') # MB
run() { # name, hold after mapping, options...
    local name=$1 hold=$2
    shift 2
    "$GT_BIN" --st=0.05 --ru=megabytes -f json --per-process --tf="$name.csv" "$@" -- \
        "$W/share_later" 64 "rows=2@$name.csv" "$hold" >"$name.txt" 2>/dev/null || fail "$name: exit $?"
    json_report "$name.txt" >"$name.json"
}
# child_walked FILE: a row of the per-process file gives the child (a
# process whose parent is in the file too) the mapped pages as shared.
child_walked() {
    awk -F, -v m="$MAPPED" 'NR == FNR { if (FNR > 1) pid[$2] = 1; next }
        FNR > 1 && ($3 in pid) && $8 >= m { found = 1 } END { exit !found }' "$1" "$1"
}
run default file=walked &
runner=$!
wait_for child_walked default.processes.csv
touch walked
wait $runner
# Four samples at least wholly after the mapping, each of which would have
# walked the child with any budget that allowed a walk.
run tiny rows=5@tiny.csv --walk-budget=0.000001
for name in default tiny; do
    within "$(jget "$name.json" .max_ram.descendants.total_rss)" "$MAPPED" 90 "$name: the child's total RSS (MB)"
done
within "$(jget default.json .max_ram.descendants.shared_rss)" "$MAPPED" 90 \
    "default budget: the child's shared RSS (MB), walked after it mapped the pages"
within "$(jget default.json .max_ram.descendants.private_rss)" 0 16 "default budget: the child's private RSS (MB)"
within "$(jget tiny.json .max_ram.descendants.shared_rss)" 0 16 \
    "tiny budget: the child's shared RSS (MB), as its first walk found it"
within "$(jget tiny.json .max_ram.descendants.private_rss)" "$MAPPED" 90 \
    "tiny budget: the child's private RSS (MB): the total less the first walk's shared"
exit 0
