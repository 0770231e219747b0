# SPDX-License-Identifier: MIT
# A real Slurm for end-to-end tests, sourced after _lib.sh: munged,
# slurmctld and two slurmd acting as nodes n1 and n2, each in its own
# network, UTS and PID namespace (so host names differ and PIDs repeat
# across nodes, as on a cluster), joined by a bridge on a private /24 that
# exists only for this test.  slurmctld, the bridge and the client commands
# live in a namespace of their own too ($IN_CTL runs a command there), so no
# address the test uses exists outside the namespaces it made.  Everything started here is stopped by the
# EXIT trap, also when the test fails; a machine where this cannot run
# skips the test.  SLURM_PLUGSTACK may hold plugstack.conf's lines.
[ "$(id -u)" = 0 ] || skip "needs root for network namespaces and slurmd"
for c in munged slurmctld slurmd srun sinfo squeue scancel ip unshare; do
    command -v "$c" >/dev/null 2>&1 || skip "'$c' is not installed (Debian: slurm-wlm munge iproute2)"
done
ip netns list >/dev/null 2>&1 || skip "network namespaces are not available"

id=$$
BR=gtbr$id
CTL=gt${id}ctl
IN_CTL="ip netns exec $CTL"
NET=10.$((100 + id % 100)).$((id / 100 % 250)).
CPORT=$((20000 + id % 20000))
DPORT=$((CPORT + 1))
NODES="n1 n2"
failure=
fail() { failure=$*; echo "FAIL: $*" >&2; exit 1; }
pids=()   # munged, slurmctld, and one `unshare` per node
alive() { [ -e "/proc/$1" ] && ! grep -q ') Z ' "/proc/$1/stat" 2>/dev/null; }
# unshare --fork ignores SIGTERM while it waits: a node is stopped through
# its slurmd, the first process of the node's PID namespace, whose end ends
# every process left in that namespace.
signal_all() {
    for p in "${pids[@]}"; do
        kill "-$1" $(cat "/proc/$p/task/$p/children" 2>/dev/null) "$p" 2>/dev/null
    done
}
stop_all() {
    local rc=$?
    set +e
    signal_all TERM
    for _ in $(seq 100); do
        a=
        for p in "${pids[@]}"; do alive "$p" && a=1; done
        [ -z "$a" ] && break
        sleep 0.1
    done
    signal_all KILL
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
    for n in $NODES; do ip netns del "gt${id}$n" 2>/dev/null; done
    ip netns del "$CTL" 2>/dev/null # with the bridge and the veths' ends in it
    if [ $rc != 0 ] && [ $rc != 77 ]; then
        for f in "$TMP"/*.log "$TMP"/*.out; do [ -f "$f" ] && { echo "--- $f"; tail -n 15 "$f"; }; done
        # again last, where the runner's tail of the output shows it
        [ -n "$failure" ] && echo "FAIL: $failure"
    fi
    rm -rf "$TMP"
    exit $rc
}
trap stop_all EXIT

# -- the network: the controller's namespace holds a bridge, one veth from it
# into each node's namespace --
ip netns add "$CTL" || skip "cannot create a network namespace"
ip -n "$CTL" link set lo up
ip -n "$CTL" link add "$BR" type bridge || skip "cannot create a bridge"
ip -n "$CTL" addr add "${NET}1/24" dev "$BR"
ip -n "$CTL" link set "$BR" up
i=2
for n in $NODES; do
    ns=gt${id}$n
    ip netns add "$ns"
    ip link add "gt${id}h$n" type veth peer name "gt${id}c$n"
    ip link set "gt${id}h$n" netns "$CTL"
    ip -n "$CTL" link set "gt${id}h$n" master "$BR" up
    ip link set "gt${id}c$n" netns "$ns"
    ip -n "$ns" link set "gt${id}c$n" name eth0
    ip -n "$ns" addr add "$NET$i/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
    i=$((i + 1))
done

# -- munge with a key of its own, on a socket of its own --
mkdir -m 700 munge state spool spool/n1 spool/n2 out cancel
dd if=/dev/urandom of=munge/key bs=1024 count=1 2>/dev/null
chmod 600 munge/key
munged -F --force --key-file="$TMP/munge/key" --socket="$TMP/munge/sock" --pid-file="$TMP/munge/pid" \
    --seed-file="$TMP/munge/seed" --log-file="$TMP/munged.log" >"$TMP/munged.out" 2>&1 &
pids+=($!)

# -- Slurm's configuration: absolute paths everywhere (the daemons chdir /) --
cat >slurm.conf <<CONF
ClusterName=gt$id
SlurmctldHost=$(hostname)(${NET}1)
SlurmctldPort=$CPORT
SlurmdPort=$DPORT
AuthType=auth/munge
AuthInfo=socket=$TMP/munge/sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$TMP/state
SlurmdSpoolDir=$TMP/spool/%n
SlurmctldPidFile=$TMP/slurmctld.pid
SlurmdPidFile=$TMP/slurmd-%n.pid
SlurmctldLogFile=$TMP/slurmctld.log
SlurmdLogFile=$TMP/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/linear
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
KillWait=30
PlugStackConfig=$TMP/plugstack.conf
NodeName=n1 NodeAddr=${NET}2 CPUs=2 RealMemory=500 State=UNKNOWN
NodeName=n2 NodeAddr=${NET}3 CPUs=2 RealMemory=500 State=UNKNOWN
PartitionName=p Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP
CONF
echo "CgroupPlugin=cgroup/v1" >cgroup.conf
printf "%s\n" "${SLURM_PLUGSTACK:-}" >plugstack.conf
export SLURM_CONF=$TMP/slurm.conf

wait_for test -S munge/sock
$IN_CTL slurmctld -D -i -f "$SLURM_CONF" >"$TMP/slurmctld.out" 2>&1 &
pids+=($!)
for n in $NODES; do
    ip netns exec "gt${id}$n" unshare --uts --pid --fork --kill-child --mount-proc \
        sh -c "hostname $n && exec slurmd -D -N $n -f '$SLURM_CONF'" >"$TMP/slurmd-$n.out" 2>&1 &
    pids+=($!)
done
nodes_up() { [ "$($IN_CTL sinfo -h -N -o '%N %T' 2>/dev/null | grep -c ' idle')" = 2 ]; }
wait_for nodes_up

