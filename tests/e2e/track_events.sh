# SPDX-License-Identifier: MIT
# The event backend (--events): the combined peak of a 20 ms overlap of two
# 150 MB children, missed by samples a second apart, exact from the
# kernel's events; 1,000 processes of about a millisecond each, every one
# followed; an unrelated busy process counted nowhere; and the sampled
# path, labelled with its reason, where the backend is off or cannot load.
# Maps too small for the tree, and descendants running before tracking
# began (--attach), turn the figures into labelled lower bounds.
# Every bound is the run's own truth (what the workloads read of
# themselves) widened by the report's own bound per process (the kernel's
# per-CPU counter batching).
. "$(dirname "$0")/_lib.sh"
use_hooks # GT_EVENTS_MAX_PROCS, GT_EVENTS_SIMULATE
MB150=150

# method FILE: the three max_ram methods on one line.
method() { jq -r '[.max_ram_method.main, .max_ram_method.descendants, .max_ram_method.combined] | join(",")' "$1"; }
EXACT="exact (kernel events),exact (kernel events),exact (kernel events)"
SAMPLED="lower bound (sampled),lower bound (sampled),lower bound (sampled)"

events_ran=0
if [ "$(id -u)" != 0 ]; then
    skip_part "event backend" "not root: only the fallback is checked"
elif ! "$GT_BIN" --events=on --disable-logs -- true >/dev/null 2>probe.txt; then
    grep -q "built without the event backend" probe.txt ||
        fail "as root, --events=on failed: $(cat probe.txt)"
    skip_part "event backend" "$(cat probe.txt)"
else
    events_ran=1
fi

if [ $events_ran = 1 ]; then
    # The overlap, at --st=1: with events the combined peak is the two
    # children's memory together, at a time inside their overlap.
    "$GT_BIN" --st=1 --ru=bytes -f json --disable-logs --tf=t.csv -- "$W/overlap" $MB150 20 1 truth.txt >out.txt
    json_report out.txt >r.json
    [ "$(method r.json)" = "$EXACT" ] || fail "overlap: methods $(method r.json)"
    read -r both start end <truth.txt
    bound=$(jget r.json .max_ram_method.bound_per_process)
    main=$(jget r.json .max_ram.main.total_rss)
    comb=$(jget r.json .max_ram.combined.total_rss)
    # Three processes (main and the two children) alive at the peak.
    within "$comb" "$(awk -v b="$both" -v e="$bound" 'BEGIN { print b - 3 * e }')" \
        "$(awk -v b="$both" -v m="$main" -v e="$bound" 'BEGIN { print b + m + 3 * e }')" "overlap: combined peak"
    within "$(jget r.json .max_ram.descendants.total_rss)" "$(awk -v b="$both" -v e="$bound" 'BEGIN { print b - 2 * e }')" \
        "$(awk -v b="$both" -v e="$bound" 'BEGIN { print b + 2 * e }')" "overlap: descendants peak"
    # The clocks are converted once (boot time to Unix time): 1 ms of slack.
    within "$(jget r.json .max_ram_method.combined_peak_time)" "$(awk -v s="$start" 'BEGIN { printf "%.6f", s - 0.001 }')" \
        "$(awk -v s="$end" 'BEGIN { printf "%.6f", s + 0.001 }')" "overlap: time of the combined peak"
    [ "$(jget r.json .max_ram_method.processes)" = 3 ] || fail "overlap: processes followed"
    # The samples of the same run (the tracking file) never exceed it.
    sampled=$(awk -F, '$1 == "main_ram" { for (i = 1; i <= NF; i++) if ($i == "combined_ram") c = i; next }
                       c && $c + 0 > m { m = $c + 0 } END { if (!c) exit 1; printf "%.0f", m }' t.csv) ||
        fail "overlap: no combined_ram column in the tracking file"
    within "$sampled" 1 "$(awk -v c="$comb" -v e="$bound" 'BEGIN { print c + 3 * e }')" \
        "overlap: the samples of the same run against the event peak"
    echo "overlap of $both bytes: event peak $comb, largest sample $sampled"

    # The same with --events=off: sampled, and labelled so with the reason.
    "$GT_BIN" --st=1 --ru=bytes -f json --disable-logs --events=off -- "$W/overlap" $MB150 20 1 truth.txt >out.txt
    json_report out.txt >off.json
    [ "$(method off.json)" = "$SAMPLED" ] || fail "events off: methods $(method off.json)"
    [ "$(jget off.json .max_ram_method.reason)" = "the event backend is off (events off)" ] || fail "events off: reason"
    read -r both start end <truth.txt
    within "$(jget off.json .max_ram.combined.total_rss)" 0 \
        "$(awk -v b="$both" -v e="$bound" 'BEGIN { print b + 2 * e + 8388608 }')" "events off: sampled combined"

    # 1,000 processes of about a millisecond, one after the other: every
    # one followed, the descendants' peak that of the largest.
    "$GT_BIN" --st=1 --ru=bytes -f json --disable-logs -- "$W/short_lived" 1000 10 truth.txt >out.txt
    json_report out.txt >r.json
    [ "$(method r.json)" = "$EXACT" ] || fail "short-lived: methods $(method r.json)"
    read -r created largest <truth.txt
    [ "$created" = 1000 ] || fail "short-lived: the workload made $created processes"
    [ "$(jget r.json .max_ram_method.processes)" = 1001 ] ||
        fail "short-lived: $(jget r.json .max_ram_method.processes) processes followed, not 1001"
    bound=$(jget r.json .max_ram_method.bound_per_process)
    within "$(jget r.json .max_ram.descendants.total_rss)" "$(awk -v b="$largest" -v e="$bound" 'BEGIN { print b - e }')" \
        "$(awk -v b="$largest" -v e="$bound" 'BEGIN { print b + e }')" "short-lived: descendants peak"

    # Maps too small for the tree (50 processes alive at once for 101): the
    # figures become labelled lower bounds, never silently short.
    GT_EVENTS_MAX_PROCS=50 "$GT_BIN" --st=1 --ru=bytes -f json --disable-logs -- "$W/idle_tree" 100 0.5 >out.txt
    json_report out.txt >r.json
    [ "$(jget r.json .max_ram_method.descendants)" = "lower bound (kernel events)" ] ||
        fail "maps full: method $(jget r.json .max_ram_method.descendants)"
    jget r.json .max_ram_method.reason | grep -q "more than 50 processes" || fail "maps full: reason"
    # The same tree in maps that hold it: exact.
    GT_EVENTS_MAX_PROCS=102 "$GT_BIN" --st=1 --ru=bytes -f json --disable-logs -- "$W/idle_tree" 100 0.5 >out.txt
    json_report out.txt >r.json
    [ "$(method r.json)" = "$EXACT" ] || fail "maps large enough: methods $(method r.json)"

    # --attach to a process whose child already holds 50 MiB: the backend
    # follows only what forks after it loads, so the descendants' and
    # combined figures are labelled lower bounds, and still hold the child.
    "$W/tree" 1 3 50 &
    tree=$!
    child=
    until [ -n "$child" ] && [ "$(awk '/^VmRSS/ { print $2 }' /proc/"$child"/status 2>/dev/null || echo 0)" -ge 51200 ]; do
        kill -0 $tree 2>/dev/null || fail "attach: the tree ended before its child held its memory"
        child=$(cat /proc/$tree/task/$tree/children 2>/dev/null | awk '{ print $1 }')
        sleep 0.01
    done
    "$GT_BIN" --attach=$tree --st=0.2 --ru=bytes -f json --disable-logs >out.txt
    wait $tree
    json_report out.txt >r.json
    [ "$(jget r.json .max_ram_method.descendants),$(jget r.json .max_ram_method.combined)" = \
        "lower bound (kernel events),lower bound (kernel events)" ] || fail "attach: methods $(method r.json)"
    jget r.json .max_ram_method.reason | grep -q "1 descendants were running before tracking began" ||
        fail "attach: reason $(jget r.json .max_ram_method.reason)"
    within "$(jget r.json .max_ram.descendants.total_rss)" $((50 * 1048576)) $((60 * 1048576)) "attach: descendants"

    # An unrelated process writing 200 MiB while the overlap runs: not a
    # member, so it changes no figure and adds no process.
    "$W/touch_mem" 200 30 &
    busy=$!
    while [ "$(awk '/^VmRSS/ { print $2 }' /proc/$busy/status)" -lt 204800 ]; do sleep 0.01; done
    "$GT_BIN" --st=1 --ru=bytes -f json --disable-logs -- "$W/overlap" $MB150 20 1 truth.txt >out.txt
    kill $busy
    wait $busy 2>/dev/null || true
    json_report out.txt >r.json
    read -r both start end <truth.txt
    main=$(jget r.json .max_ram.main.total_rss)
    within "$(jget r.json .max_ram.combined.total_rss)" "$(awk -v b="$both" -v e="$bound" 'BEGIN { print b - 3 * e }')" \
        "$(awk -v b="$both" -v m="$main" -v e="$bound" 'BEGIN { print b + m + 3 * e }')" "beside a busy process: combined"
    [ "$(jget r.json .max_ram_method.processes)" = 3 ] || fail "beside a busy process: processes followed"

    # A kernel without the rss_stat tracepoint (simulated): 'on' fails with
    # the reason, 'auto' falls back to the samples and says why, once.
    if GT_EVENTS_SIMULATE=no-rss-stat "$GT_BIN" --events=on -- true >out.txt 2>err.txt; then
        fail "no tracepoint: --events=on succeeded"
    fi
    grep -q "events on: the event backend cannot find the kernel's tracepoint rss_stat" err.txt ||
        fail "no tracepoint: $(cat err.txt)"
    GT_EVENTS_SIMULATE=no-rss-stat "$GT_BIN" --st=1 --ru=bytes -f json -- "$W/overlap" 20 20 1 truth.txt \
        >out.txt 2>err.txt
    json_report out.txt >r.json
    [ "$(method r.json)" = "$SAMPLED" ] || fail "no tracepoint: methods $(method r.json)"
    jget r.json .max_ram_method.reason | grep -q "tracepoint rss_stat" || fail "no tracepoint: reason"
    [ "$(grep -c 'max RAM figures are sampled' err.txt)" = 1 ] || fail "no tracepoint: warned $(cat err.txt)"
fi

# Unprivileged: the same fallback, with the privilege it lacks named.
as_user() { "$@"; }
if [ "$(id -u)" = 0 ]; then
    as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"; }
    chmod 777 "$TMP"
fi
bin=$(nobody_path "$GT_BIN") || skip "$(nobody_path "$GT_BIN" 2>&1 >/dev/null)"
ov=$(nobody_path "$W/overlap") || skip "user nobody cannot run the overlap workload"
if as_user "$bin" --events=on -- true >out.txt 2>err.txt; then
    fail "unprivileged: --events=on succeeded"
fi
grep -Eq "events on: .*(CAP_BPF|built without)" err.txt || fail "unprivileged: $(cat err.txt)"
as_user "$bin" --st=1 --ru=bytes -f json -- "$ov" 20 20 1 "$TMP/truth_u.txt" >out.txt 2>err.txt ||
    fail "unprivileged run: $(cat err.txt)"
json_report out.txt >r.json
[ "$(method r.json)" = "$SAMPLED" ] || fail "unprivileged: methods $(method r.json)"
jget r.json .max_ram_method.reason | grep -Eq "CAP_BPF|built without" || fail "unprivileged: reason"
[ "$(grep -c 'max RAM figures are sampled' err.txt)" = 1 ] || fail "unprivileged: warned $(cat err.txt)"
echo "ok"
