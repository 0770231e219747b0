# SPDX-License-Identifier: MIT
# --walk-budget bounds the page-table walks that split RAM into private and
# shared.  A child maps 64 MiB of its parent's shared memory 1 s after it is
# first seen: its RSS grows, and only a walk can tell the new pages are
# shared.  With the default budget that walk comes at the next sample; with
# a budget too small for any walk after the first, the child's split stays
# the first walk's (the new pages count as private), while its total is
# the kernel's at every sample either way.
. "$(dirname "$0")/_lib.sh"
MIB=1.048576
run() { # name, options...
    local name=$1
    shift
    "$GT_BIN" --st=0.05 --ru=megabytes -f json "$@" -- "$W/share_later" 64 1 0.7 >"$name.txt" 2>/dev/null ||
        fail "$name: exit $?"
    json_report "$name.txt" >"$name.json"
}
run default
run tiny --walk-budget=0.000001
for name in default tiny; do
    within "$(jget "$name.json" .max_ram.descendants.total_rss)" "$(awk -v m=$MIB 'BEGIN { print 64 * m }')" 90 \
        "$name: the child's total RSS (MB)"
done
within "$(jget default.json .max_ram.descendants.shared_rss)" "$(awk -v m=$MIB 'BEGIN { print 64 * m }')" 90 \
    "default budget: the child's shared RSS (MB), walked after it mapped the pages"
within "$(jget default.json .max_ram.descendants.private_rss)" 0 16 "default budget: the child's private RSS (MB)"
within "$(jget tiny.json .max_ram.descendants.shared_rss)" 0 16 \
    "tiny budget: the child's shared RSS (MB), as its first walk found it"
within "$(jget tiny.json .max_ram.descendants.private_rss)" "$(awk -v m=$MIB 'BEGIN { print 64 * m }')" 90 \
    "tiny budget: the child's private RSS (MB): the total less the first walk's shared"
exit 0
