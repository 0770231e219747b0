# SPDX-License-Identifier: MIT
# End to end: a C program marks code blocks with libgputracker while
# gpu-tracker --tf tracks it; the analysis finds each block's calls and the
# memory that only one of them held.
SRC="$(cd "$(dirname "$0")/../workloads" && pwd)/subtrack_blocks.c"
. "$(dirname "$0")/_lib.sh"
line=$(grep -n 'GT_SUBTRACK_SCOPE(st, NULL)' "$SRC" | cut -d: -f1)
unnamed="tests/workloads/subtrack_blocks.c:$line"
hold="tests/workloads/subtrack_blocks.c:hold"

for fmt in csv sqlite; do
    t0=$(date +%s.%N)
    "$GT_BIN" --st=0.02 --ru=megabytes --disable-logs --tf="t.$fmt" -- "$W/subtrack_blocks" "m.$fmt" 200 >/dev/null
    wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
    "$GT_BIN" sub-track analyze --tf="t.$fmt" --stf="m.$fmt" -f json -o r.json
    names=$(jq -c '[.code_block_results[].name]' r.json)
    [ "$names" = "[\"idle\",\"$unnamed\",\"$hold\"]" ] || fail "$fmt: code blocks $names"
    blk() { jq -er --arg n "$1" ".code_block_results[] | select(.name == \$n) | $2" r.json; }

    [ "$(blk idle .num_calls)" = 3 ] || fail "$fmt: idle calls"
    [ "$(blk "$hold" .num_calls)" = 1 ] || fail "$fmt: hold calls"
    [ "$(blk "$unnamed" .num_calls)" = 1 ] || fail "$fmt: unnamed calls"
    # Durations: never shorter than the sleeps, never longer than the run
    # (a loaded machine stretches them).
    within "$(blk idle .compute_time.min)" 0.3 "$wall" "$fmt: idle call time"
    within "$(blk "$hold" .compute_time.total)" 0.6 "$wall" "$fmt: hold call time"
    within "$(blk "$unnamed" .compute_time.total)" 0.2 "$wall" "$fmt: unnamed call time"
    # 200 MiB = 209.7 MB held only inside hold().
    within "$(blk "$hold" .resource_usage.main_ram.max)" 205 400 "$fmt: RAM inside hold"
    within "$(blk idle .resource_usage.main_ram.max)" 0 100 "$fmt: RAM inside idle"
    within "$(blk "$unnamed" .resource_usage.main_ram.max)" 0 100 "$fmt: RAM after hold"
    within "$(jq -r .overall.main_ram.max r.json)" 205 400 "$fmt: overall RAM"
    [ "$(blk "$hold" .num_non_empty_calls)" = 1 ] || fail "$fmt: no sample inside hold (0.6 s at --st=0.02)"
    # The marks carry the workload's own process ID, not the tracker's.
    if [ $fmt = csv ]; then
        pids=$(tail -n +2 m.csv | cut -d, -f1 | sort -u)
    else
        pids=$(sqlite3 m.sqlite "select distinct process_id from data")
    fi
    [ "$(echo "$pids" | wc -l)" = 1 ] && [ "$pids" != "$$" ] || fail "$fmt: process IDs $pids"
done
