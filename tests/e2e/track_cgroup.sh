# SPDX-License-Identifier: MIT
# --cgroup: the command runs in a cgroup made for it, and the report's
# Cgroup section has that group's own counters.  Memory: a child that
# touches N MiB reads a peak of at least N MiB and at most N MiB plus what
# the same command without its pages charged in the same test, the page
# tables of N MiB and the memory controller's charge batch.  CPU: a burn of
# two threads reads at least the CPU time the burn's own process used (its
# parent's wait4) and at most that plus its parent's own time and exit.  The
# group is gone after the run; a command that leaves a process running is
# told that its group stays.  --efficiency gives the group's peak beside
# the command's exact RSS peak.  Without --cgroup, a process attached to in a
# group of its own (as a Slurm step's task) has the section, from that
# group; one in gpu-tracker's own groups has none.  As user nobody, --cgroup fails with the
# reason.  Runs as root where the cgroup v1 memory and cpuacct hierarchies
# (or a v2 hierarchy with the memory controller) can take a new group;
# cgroup v2 is checked on fake trees by test_cgroup.
. "$(dirname "$0")/_lib.sh"
[ "$(id -u)" = 0 ] || skip "--cgroup makes groups as root here (not root)"
# Where this machine can make a group: what --cgroup tries, first v1.
mount_of() { awk -v t="$1" -v c="$2" '$0 ~ " - " t " " && (c == "" || $NF ~ "(^|,)" c "(,|$)") { print $5; exit }' \
    /proc/self/mountinfo; }
own_of() { awk -F: -v c="$1" '(c == "" && $2 == "") || (c != "" && $2 ~ "(^|,)" c "(,|$)") { print $3; exit }' \
    /proc/self/cgroup; }
mem_mnt=$(mount_of cgroup memory)
cpu_mnt=$(mount_of cgroup cpuacct)
if [ -n "$mem_mnt" ] && [ -n "$cpu_mnt" ]; then
    probe="$mem_mnt$(own_of memory)/gt-test-probe.$$"
    mkdir "$probe" 2>/dev/null || skip "cannot make a group in the cgroup v1 memory hierarchy ($probe)"
    rmdir "$probe"
else
    v2=$(mount_of cgroup2 '')
    [ -n "$v2" ] || skip "no cgroup v1 memory and cpuacct hierarchies, and no cgroup v2"
    parent=$(dirname "$v2$(own_of '')")
    grep -qw memory "$parent/cgroup.subtree_control" 2>/dev/null ||
        skip "cgroup v2 gives the groups under $parent no memory controller"
fi
gone_pid() { [ ! -e "/proc/$1" ]; }
# Every mounted hierarchy, to look for a group left behind.
hierarchies=$(awk '$0 ~ / - cgroup2? / { print $5 }' /proc/self/mountinfo)
gone() {
    local m
    for m in $hierarchies; do
        [ ! -d "$m$1" ] || fail "the group $m$1 is still there after the run"
    done
}

# Memory: the command alone (0 MiB), then with N MiB.
N=100
peak_of() {
    "$GT_BIN" --cgroup --quiet --disable-logs -f json --ru=bytes -- "$W/touch_mem" "$1" 0 >out.txt
    json_report out.txt >r.json
    [ "$(jget r.json .cgroup.version)" = 1 ] || [ "$(jget r.json .cgroup.version)" = 2 ] || fail "no cgroup version"
    jget r.json .cgroup.memory_peak
}
base=$(peak_of 0)
gone "$(jget r.json .cgroup.path)"
peak=$(peak_of $N)
path=$(jget r.json .cgroup.path)
case $path in */gpu-tracker.[0-9]*) ;; *) fail "group path '$path': not the one --cgroup makes" ;; esac
gone "$path"
gone "$(jget r.json .cgroup.cpu_path)"
bytes=$((N * 1048576))
batch=$((64 * $(getconf PAGESIZE) * $(nproc)))
tables=$((bytes / 512)) # 8 bytes of page table per 4 KiB page
within "$peak" "$bytes" $((bytes + ${base%.*} + tables + batch)) "cgroup memory peak of $N MiB (alone: $base)"
# The limit that binds (none on most machines) and the headroom under it.
limit=$(jget r.json '.cgroup.memory_limit // "none"')
if [ "$limit" = none ]; then
    [ "$(jget r.json '.cgroup.memory_headroom == null')" = true ] || fail "a headroom without a limit"
else
    [ "$(jget r.json '.cgroup.memory_headroom == .cgroup.memory_limit - .cgroup.memory_peak')" = true ] ||
        fail "headroom is not the limit less the peak"
fi
jget r.json .cgroup.memory_method | grep -q "page cache and kernel memory" || fail "the method does not say what it counts"
[ "$(jget r.json '.cgroup.unavailable == null')" = true ] || fail "figures unavailable: $(jget r.json .cgroup.unavailable)"

# CPU: two threads burn 300 ms each under cpu_account, which says what its
# child used (wait4), what it used itself, and what an exit costs.
"$GT_BIN" --cgroup --quiet --disable-logs -f json -- "$W/cpu_account" acc.txt "$W/burn" 2 300 >out.txt
json_report out.txt >r.json
read -r child self exit_s <acc.txt
tick=$(awk -v h="$(getconf CLK_TCK)" 'BEGIN { printf "%.6f", 1 / h }')
ns=$(jget r.json .cgroup.cpu_ns)
# Its own exit after its last read costs about a child's exit, within a tick.
within "$ns" "$(awk -v c="$child" 'BEGIN { printf "%.0f", c * 1e9 }')" \
    "$(awk -v c="$child" -v s="$self" -v e="$exit_s" -v t="$tick" 'BEGIN { printf "%.0f", (c + s + e + t) * 1e9 }')" \
    "cgroup CPU ns (child $child s, itself $self s, an exit $exit_s s)"
[ "$(jget r.json '.cgroup.cpu_seconds == .cgroup.cpu_ns / 1e9')" = true ] || fail "CPU seconds are not the ns"
gone "$(jget r.json .cgroup.cpu_path)"

# --efficiency: the group's peak beside the command's exact RSS peak, each
# with its method and against the request (SLURM_MEM_PER_NODE=1024).
SLURM_MEM_PER_NODE=1024 "$GT_BIN" --cgroup --efficiency --quiet --disable-logs -f json --ru=bytes -- \
    "$W/touch_mem" $N 0 >out.txt
json_report out.txt >r.json
jq -e '.efficiency.memory.cgroup.peak_bytes == .cgroup.memory_peak and .cgroup.memory_peak > 0 and
       .efficiency.memory.cgroup.peak_method == .cgroup.memory_method and
       (.efficiency.memory.cgroup.percent_of_request - 100 * .cgroup.memory_peak / 1073741824 | fabs) < 1e-9 and
       .efficiency.memory.peak_bytes == .peak_ram.main and (.efficiency.memory.peak_method | endswith("exact"))' \
    r.json >/dev/null || fail "efficiency's cgroup peak: $(jq -c '[.cgroup, .efficiency.memory]' r.json)"

# Text: the section, its memory method and limit; the Efficiency section's
# cgroup peak under its own heading.
"$GT_BIN" --cgroup --efficiency --quiet --disable-logs -- "$W/touch_mem" 1 0 >out.txt
grep -q '^Cgroup:$' out.txt || fail "no Cgroup section in the text report"
grep -q '^   Memory limit: ' out.txt || fail "no memory limit line"
grep -A2 '^      Cgroup:$' out.txt | grep -q '^         Peak method: cgroup v[12] memory' ||
    fail "no cgroup peak in the Efficiency section: $(sed -n '/^Efficiency/,$p' out.txt)"
# Without --cgroup the command shares gpu-tracker's groups: no section, and
# no cgroup peak in the Efficiency section.
"$GT_BIN" --efficiency --quiet --disable-logs -f json -- "$W/touch_mem" 1 0 >out.txt
json_report out.txt >r.json
[ "$(jget r.json 'has("cgroup")')" = false ] || fail "a Cgroup section for a command in gpu-tracker's own group"
[ "$(jget r.json '.efficiency.memory | has("cgroup")')" = false ] || fail "a cgroup peak without a group of its own"

# A process already in a group of its own, as a Slurm step's task under
# task/cgroup, has the section without --cgroup: that group's counters.
if [ -n "$mem_mnt" ]; then
    g=gt-test-own.$$
    own_dirs="$mem_mnt$(own_of memory)/$g $cpu_mnt$(own_of cpuacct)/$g"
    [ "$mem_mnt" != "$cpu_mnt" ] || own_dirs="$mem_mnt$(own_of memory)/$g"
    # shellcheck disable=SC2086
    mkdir $own_dirs
    trap '[ ! -s "$TMP/own.pid" ] || kill "$(cat "$TMP/own.pid")" 2>/dev/null; rmdir $own_dirs 2>/dev/null; cleanup' EXIT
    sh -c "for d in $own_dirs; do echo \$\$ >\$d/cgroup.procs; done; exec '$W/touch_mem' 20 file=$TMP/own-release" &
    echo $! >own.pid
    "$GT_BIN" --attach="$(cat own.pid)" --quiet --disable-logs -f json --ru=bytes --tf=own.csv >out.txt &
    tracker=$!
    wait_for lines_at_least own.csv 4
    touch own-release
    wait $tracker
    json_report out.txt >r.json
    case $(jget r.json .cgroup.path) in */$g) ;; *) fail "attached to a process in $g: path $(jget r.json .cgroup.path)" ;; esac
    # The same bound as above (the shell that moved itself in execs the
    # workload, its earlier pages charged where it was).
    within "$(jget r.json .cgroup.memory_peak)" $((20 * 1048576)) $((20 * 1048576 + ${base%.*} + 20 * 2048 + batch)) \
        "peak of a group of its own"
    wait_for gone_pid "$(cat own.pid)"
    rm own.pid
    # shellcheck disable=SC2086
    rmdir $own_dirs
fi

# A process left running keeps the group: said, whatever the logging.  A
# failure below ends that process, so it holds nothing for long.
trap '[ ! -s "$TMP/left.pid" ] || kill "$(cat "$TMP/left.pid")" 2>/dev/null; cleanup' EXIT
"$GT_BIN" --cgroup --quiet --disable-logs -f json -- sh -c "'$W/touch_mem' 0 file=$TMP/release & echo \$! >left.pid" \
    >out.txt 2>err.txt
grep -q "gpu-tracker: warning: cannot remove cgroup .*/gpu-tracker\.[0-9]*: .*(1 process is still in it)" err.txt ||
    fail "no word of the group left behind: $(cat err.txt)"
grep -o 'cannot remove cgroup [^:]*' err.txt | sed 's/^cannot remove cgroup //' >left.txt
# Each group made is named: one per hierarchy, each still there.
made=1
[ -z "$mem_mnt" ] || [ -z "$cpu_mnt" ] || [ "$mem_mnt" = "$cpu_mnt" ] || made=2
[ "$(wc -l <left.txt)" = $made ] || fail "not every group left ($made) is named: $(cat err.txt)"
while read -r d; do [ -d "$d" ] || fail "the group said to be left ($d) is not there"; done <left.txt
touch "$TMP/release"
wait_for gone_pid "$(cat left.pid)"
while read -r d; do rmdir "$d"; done <left.txt
rm left.pid

# As nobody: the reason, and gpu-tracker's usage status.
if bin=$(nobody_path "$GT_BIN"); then
    rc=0
    setpriv --reuid=65534 --regid=65534 --clear-groups "$bin" --cgroup --quiet -- /bin/true >/dev/null 2>err.txt || rc=$?
    [ $rc = 2 ] || fail "--cgroup as nobody exited $rc, not 2: $(cat err.txt)"
    grep -q "gpu-tracker: --cgroup: cannot create cgroup .*: Permission denied (--cgroup needs root on cgroup v1)" err.txt ||
        grep -q "gpu-tracker: --cgroup: .*delegated" err.txt || fail "as nobody: $(cat err.txt)"
else
    skip_part "--cgroup as nobody" "no binary nobody can run"
fi
# --attach cannot: the process already runs.
rc=0
"$GT_BIN" --cgroup --attach=$$ >/dev/null 2>err.txt || rc=$?
[ $rc = 2 ] && grep -q -- "--cgroup needs a command to run" err.txt || fail "--cgroup --attach: $rc $(cat err.txt)"
