# SPDX-License-Identifier: MIT
# Signals a user or a scheduler sends (Slurm's --signal=USR1@120, scancel
# --signal, kill, timers) reach the command exactly once and never end
# gpu-tracker: the command keeps running, the report is printed, the
# tracking file is whole and no temporary file is left.  The workload counts
# every signal it receives.
. "$(dirname "$0")/_lib.sh"
set -m # the tracker leads its own process group, as in a shell's job

# count NAME: how many signals NAME the workload has received so far.
count() { awk -v n="$1" '$1 == n { print $2 }' counts 2>/dev/null || true; }
# wait_count NAME N: until the workload has received N signals NAME.
wait_count() {
    for _ in $(seq 1200); do
        [ "$(count "$1")" = "$2" ] && return 0
        sleep 0.05
    done
    fail "$3: SIG$1 received $(count "$1") times, not $2"
}
# settled NAME: a barrier.  SIGRTMAX, sent to gpu-tracker alone, is
# forwarded after any copy of a lower-numbered signal it read before (a
# signalfd gives the lowest first) and the workload takes pending signals
# lowest first, so once it has counted RTMAX the count of NAME is final.
barrier=0
settled() {
    barrier=$((barrier + 1))
    kill -RTMAX $pid
    wait_count RTMAX $barrier "barrier after SIG$1"
}

# Whatever fails, the tracker and the workload do not outlive the test.
pid='' cmd='' wl='' stepd=''
stop_all() {
    for p in $pid $cmd $wl $stepd; do kill -KILL $p 2>/dev/null || true; done
    cleanup
}
trap stop_all EXIT

# Slurm's step daemon signals every process of the step, the command too:
# a script named slurmstepd stands in for it, alive (as the daemon is)
# until told to end.
printf '#!/bin/bash\nkill "$@"\ntrap '"'"'kill $!; exit 0'"'"' TERM\nsleep 600 &\nwait\n' >slurmstepd
chmod +x slurmstepd

"$GT_BIN" --st=0.02 --tf=t.csv --ru=megabytes -- "$W/sigcount" counts >out.txt 2>err.txt &
pid=$!
for _ in $(seq 1200); do
    [ -s counts ] && [ -f t.csv ] && [ $(($(wc -l <t.csv) - 3)) -ge 3 ] && break
    sleep 0.05
done
[ -s counts ] || fail "the workload did not start"
cmd=$(cat /proc/$pid/task/*/children | tr ' ' '\n' | grep -m1 .)

# Sent to gpu-tracker alone: forwarded, once each.
for sig in USR1 USR2 ALRM HUP VTALRM PROF XCPU PWR IO RTMIN; do
    kill -$sig $pid
    wait_count $sig 1 "kill -$sig of gpu-tracker"
    settled $sig
    [ "$(count $sig)" = 1 ] || fail "kill -$sig of gpu-tracker: the command received it $(count $sig) times"
done
# Sent to every process of the step: the command has it already.  RTMIN
# queues (two deliveries are never merged), so a second copy would count.
for sig in RTMIN USR1; do
    ./slurmstepd -$sig $pid $cmd &
    stepd=$!
    wait_count $sig 2 "slurmstepd -$sig"
    settled $sig
    kill $stepd
    wait $stepd || true
    [ "$(count $sig)" = 2 ] || fail "slurmstepd -$sig: the command received it $(($(count $sig) - 1)) times"
done
# Sent to the process group (a shell's kill %1, kill -- -PGID): the
# command, in gpu-tracker's group, has it already.
for sig in RTMIN USR1; do
    before=$(count $sig)
    kill -$sig -- -$pid
    wait_count $sig $((before + 1)) "kill -$sig of the process group"
    settled $sig
    [ "$(count $sig)" = $((before + 1)) ] ||
        fail "kill -$sig of the process group: the command received it $(($(count $sig) - before)) times"
done
kill -0 $pid || fail "gpu-tracker ended"
kill -TERM $pid
rc=0; wait $pid || rc=$?
[ $rc = 0 ] || fail "exit status $rc, expected the command's 0; stderr: $(cat err.txt)"
grep -q "status code: 0" out.txt || fail "status line"
grep -q "^Compute time:" out.txt || fail "no report"
rows=$(($(wc -l <t.csv) - 3))
[ $rows -ge 3 ] || fail "$rows samples in the tracking file"
tail -n 1 t.csv | awk -F, -v n="$(sed -n 3p t.csv | awk -F, '{ print NF }')" 'NF != n { exit 1 }' || fail "last row is torn"
left=$(ls -A | grep '\.tmp' || true)
[ -z "$left" ] || fail "left behind: $left"

# Its warnings written into a pipe whose reader is gone (stderr | true):
# SIGPIPE does not end it either.
rm -f p.csv
"$GT_BIN" --st=0.02 --tf=p.csv -- sh -c 'sleep 0.3; exit 4' 2>&1 >pout.txt | true
rc=${PIPESTATUS[0]}
[ $rc = 4 ] || fail "stderr into a closed pipe: exit status $rc, not the command's 4"
grep -q "^Compute time:" pout.txt || fail "stderr into a closed pipe: no report"

# With --attach there is no command to forward to: a signal ends tracking
# cleanly, the attached process runs on.
"$W/sigcount" counts2 &
wl=$!
"$GT_BIN" --st=0.02 --tf=a.csv --attach=$wl >aout.txt 2>aerr.txt &
pid=$!
for _ in $(seq 1200); do
    [ -f a.csv ] && [ $(($(wc -l <a.csv) - 3)) -ge 3 ] && break
    sleep 0.05
done
kill -USR1 $pid
rc=0; wait $pid || rc=$?
[ $rc = 0 ] || fail "--attach, SIGUSR1: exit status $rc; stderr: $(cat aerr.txt)"
grep -q "Process $wl is still running" aout.txt || fail "--attach, SIGUSR1: status line"
grep -q "^Compute time:" aout.txt || fail "--attach, SIGUSR1: no report"
kill -0 $wl || fail "--attach: the attached process was ended"
kill -TERM $wl
wait $wl || true
