# SPDX-License-Identifier: MIT
# Sub-tracking on two nodes: the workload marks code blocks under
# GT_SUBTRACK_HOST=1 on "node-a" and "node-b"; the two files combine, and
# analyzing the combined file for one host with that host's tracking file
# gives exactly that host's own results, while analyzing without a host is
# refused.  As root each run gets its own UTS and PID namespace, so the host
# name comes from gethostname() and both workloads have the same process
# ID, as ranks on two nodes may; elsewhere SLURMD_NODENAME names the hosts.
. "$(dirname "$0")/_lib.sh"
export GT_SUBTRACK_HOST=1
unset SLURM_JOB_ID SLURMD_NODENAME

ns=0
if [ "$(id -u)" = 0 ] && unshare --uts --pid --fork --mount-proc true 2>/dev/null; then
    ns=1
fi
run_on() { # HOST EXT
    if [ $ns = 1 ]; then
        unshare --uts --pid --fork --mount-proc sh -c 'hostname "$1" && shift && exec "$@"' sh "$1" \
            "$GT_BIN" --st=0.05 --disable-logs --tf="t-$1.$2" -- "$W/subtrack_blocks" "m-$1.$2" 20
    else
        SLURMD_NODENAME="$1" "$GT_BIN" --st=0.05 --disable-logs --tf="t-$1.$2" -- \
            "$W/subtrack_blocks" "m-$1.$2" 20
    fi >/dev/null
}

for ext in csv sqlite; do
    run_on node-a $ext
    run_on node-b $ext
    if [ $ext = csv ]; then
        hosts=$(tail -n +2 m-node-a.csv | awk -F, '{print $NF}' | sort -u)
        pids=$(cat m-node-a.csv m-node-b.csv | grep -v '^process_id' | cut -d, -f1 | sort -u)
    else
        hosts=$(sqlite3 m-node-a.sqlite "select distinct host from data")
        pids=$(for h in a b; do sqlite3 m-node-$h.sqlite "select distinct process_id from data"; done | sort -u)
    fi
    [ "$hosts" = node-a ] || fail "$ext: host column of node-a's file: $hosts"
    if [ $ns = 1 ]; then
        [ "$(echo "$pids" | wc -l)" = 1 ] || fail "$ext: the workloads' process IDs differ: $pids"
    fi

    "$GT_BIN" sub-track combine --stf="all.$ext" -p "m-node-a.$ext" "m-node-b.$ext"
    for h in node-a node-b; do
        "$GT_BIN" sub-track analyze --tf="t-$h.$ext" --stf="m-$h.$ext" -f json -o "own-$h.json"
        "$GT_BIN" sub-track analyze --tf="t-$h.$ext" --stf="all.$ext" --host=$h -f json -o "all-$h.json"
        cmp "own-$h.json" "all-$h.json" || fail "$ext: $h's marks in the combined file analyze differently"
        [ "$(jq -r '.code_block_results[] | select(.name == "idle") | .num_calls' "all-$h.json")" = 3 ] ||
            fail "$ext: $h: idle calls"
    done
    rc=0
    "$GT_BIN" sub-track analyze --tf="t-node-a.$ext" --stf="all.$ext" 2>err.txt >/dev/null || rc=$?
    [ $rc = 2 ] || fail "$ext: analyze of two hosts' marks without --host: exit status $rc"
    grep -q "holds marks of several hosts ('node-a', 'node-b')" err.txt || fail "$ext: message: $(cat err.txt)"
    # A plot draws one tracking file's timeline: two hosts' marks are refused there too.
    rc=0
    "$GT_BIN" plot --tf="t-node-a.$ext" --stf="all.$ext" -o p.svg 2>err.txt || rc=$?
    [ $rc = 2 ] && grep -q "several hosts" err.txt || fail "$ext: plot of two hosts' marks: $rc $(cat err.txt)"
    "$GT_BIN" plot --tf="t-node-a.$ext" --stf="m-node-a.$ext" -o p.svg || fail "$ext: plot of one host's marks"
    rc=0
    "$GT_BIN" sub-track analyze --tf="t-node-a.$ext" --stf="all.$ext" --host=node-c 2>err.txt >/dev/null || rc=$?
    [ $rc = 2 ] && grep -q "has no marks of host 'node-c'" err.txt || fail "$ext: unknown host: $rc $(cat err.txt)"
done
