# SPDX-License-Identifier: MIT
# What the tracker cannot see is said, never passed off as zero: a low
# open-files limit, a process the user may not read, the tracker itself
# under an attached ancestor, descendants left running by the command.
. "$(dirname "$0")/_lib.sh"

# 300 processes under `ulimit -n 256` (soft and hard): every one counted.
# The command leaves them running, so the last sample (taken once it has
# exited) sees all 300 however slowly a loaded machine forks them.
tree300() { # pid file: 300 sleeps left running, their PIDs in the file
    echo "for i in \$(seq 300); do sleep 600 & echo \$! >>$1; done"
}
stop_tree() { kill $(cat "$1") 2>/dev/null || true; }
(ulimit -n 256; "$GT_BIN" --st=0.1 -f json -- sh -c "$(tree300 p1)" >out.txt 2>err.txt)
stop_tree p1
json_report out.txt >r.json
[ "$(jget r.json .cpu_utilization.descendants_n_threads)" = 300 ] ||
    fail "ulimit -n 256: $(jget r.json .cpu_utilization.descendants_n_threads) of 300 processes"
! grep -q 'file descriptors' err.txt || fail "no shortage expected: $(cat err.txt)"
grep -q 'the command exited leaving 300 descendant processes running' err.txt || fail "left: $(cat err.txt)"
# A low soft limit is raised for the tracker, not for the command.
(ulimit -Sn 64; ulimit -Hn 4096; "$GT_BIN" --st=0.1 -- sh -c 'ulimit -Sn >limit.txt' >out.txt 2>err.txt)
[ "$(cat limit.txt)" = 64 ] || fail "the command's own limit: $(cat limit.txt)"
# Descriptors the tracker inherited leave it short: said once, with the limit.
(
    ulimit -n 256
    for i in $(seq 20 250); do eval "exec $i</dev/null"; done
    "$GT_BIN" --st=0.05 -f json -- sh -c "$(tree300 p2)" >out.txt 2>err.txt || true
)
stop_tree p2
[ "$(grep -c 'too few file descriptors (open files limit 256)' err.txt)" = 1 ] ||
    fail "shortage warning once: $(cat err.txt)"

# Attached to an ancestor of gpu-tracker: the tracker is not a descendant
# (it has two threads; the ancestor's only other child, sleep, has one).
# The ancestor lives until the tracker has written three samples.
sh -c '"$GT_BIN" --attach=$$ --st=0.02 -f json --tf=anc.csv >out.txt 2>err.txt &
    until [ "$(wc -l 2>/dev/null <anc.csv)" -ge 6 ] 2>/dev/null; do sleep 0.1; done'
report_done() { [ -s out.txt ] && grep -q '^}' out.txt; }
wait_for report_done
json_report out.txt >r.json
[ "$(jget r.json .cpu_utilization.descendants_n_threads)" = 1 ] ||
    fail "attached ancestor counts the tracker: $(jget r.json .cpu_utilization.descendants_n_threads) threads"

# Another user's process (here: root's, tracked by nobody): RAM unavailable,
# with the reason once, never 0.
if [ "$(id -u)" = 0 ]; then
    chmod 755 "$TMP"
    mkdir -m 777 nb # where nobody writes its tracking files
    cp "$GT_BIN" "$TMP/gpu-tracker"
    # The process lives until the tracker attached to it has written three
    # samples, however slowly a loaded machine starts it.
    "$W/touch_mem" 20 file=nb/release &
    pid=$!
    setpriv --reuid=65534 --regid=65534 --clear-groups -- "$TMP/gpu-tracker" --attach=$pid --st=0.05 -f json \
        --tf=nb/u.csv >out.txt 2>err.txt &
    t=$!
    wait_for lines_at_least nb/u.csv 6
    touch nb/release
    wait $t
    wait $pid
    json_report out.txt >r.json
    for k in total_rss private_rss shared_rss; do
        [ "$(jq ".max_ram.main.$k, .max_ram.combined.$k" r.json | sort -u)" = null ] || fail "main $k: not null"
    done
    jget r.json .max_ram.unavailable | grep -q "process $pid cannot be read: Permission denied" ||
        fail "reason: $(jq .max_ram r.json)"
    [ "$(grep -c "cannot read the memory of process $pid" err.txt)" = 1 ] || fail "warning once: $(cat err.txt)"
    setpriv --reuid=65534 --regid=65534 --clear-groups -- "$TMP/gpu-tracker" --attach=$$ --st=0.05 \
        --disable-logs --tf=nb/v.csv >out.txt 2>err.txt &
    t=$!
    wait_for lines_at_least nb/v.csv 6
    kill -TERM $t
    wait $t || true
    grep -q '^      Total RSS: unavailable$' out.txt || fail "text: $(sed -n '/^Max RAM/,/^Max GPU/p' out.txt)"
fi

# A command that starts a daemon and returns: how many are left is said,
# and --wait-descendants tracks them to their end (exactly, as root).
"$GT_BIN" --st=0.05 --ru=bytes -f json -- sh -c "$W/grow_exit 40 800 5 d1.txt & exit 0" >out.txt 2>err.txt
grep -q 'the command exited leaving 1 descendant process running' err.txt || fail "left: $(cat err.txt)"
wait_for test -s d1.txt # the daemon's end
t0=$(date +%s.%N)
"$GT_BIN" --st=0.05 --ru=bytes --tu=seconds -f json --wait-descendants -- \
    sh -c "$W/grow_exit 40 800 5 d.txt & exit 0" >out.txt 2>err.txt
t1=$(date +%s.%N)
json_report out.txt >r.json
! grep -q 'leaving' err.txt || fail "nothing is left: $(cat err.txt)"
# At least the daemon's 0.8 s of idling, at most the run's wall time.
within "$(jget r.json .compute_time.time)" 0.8 "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.9f", b - a }')" \
    "tracked until the daemon exited"
if [ "$(id -u)" = 0 ]; then
    t=$(($(cat d.txt) * 1024))
    within "$(jget r.json .peak_ram.largest_descendant)" $((t - 1048576)) $((t + 1048576)) "the daemon's peak"
fi
echo ok
