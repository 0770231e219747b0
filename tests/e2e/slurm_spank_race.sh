#!/bin/bash
# SPDX-License-Identifier: MIT
# The SPANK plugin runs as root inside slurmstepd and writes into a folder
# of the job's user: that user must not be able to turn its work against
# another file.  On a real Slurm (tests/e2e/_slurm.sh), user nobody runs
# steps with --gpu-tracker while an attacker swaps a symbolic link to a
# root-owned 0600 file, as fast as it can (renameat2 RENAME_EXCHANGE), with
# the step's folder DIR/<job>.<step> (before the plugin makes it) and with
# the tracking file DIR/<job>.<step>/n1.0.csv; the file must keep its owner
# and mode through every step, and what the plugin made must be nobody's.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/_lib.sh"

PLUGIN=$GT_BUILD/gpu_tracker_spank.so
[ -f "$PLUGIN" ] || skip "no SPANK plugin in $GT_BUILD: it is built where libslurm-dev is installed, and not by sanitizer builds (slurmstepd cannot load them)"
SLURM_PLUGSTACK="required $PLUGIN st=0.05"
. "$HERE/_slurm.sh"

ROUNDS=${GT_RACE_ROUNDS:-20}         # of each race
KINDS=${GT_RACE_KINDS:-folder file} # one alone, to see each race fail
# nobody's client commands need the configuration and munge's socket.
chmod 755 "$TMP" munge
mkdir race
chown 65534:65534 race
printf 'secret\n' >secret
chmod 600 secret
NB=(setpriv --reuid=65534 --regid=65534 --clear-groups)
$IN_CTL "${NB[@]}" salloc --no-shell -N1 -w n1 -t 10 >salloc.out 2>&1 || fail "salloc: $(cat salloc.out)"
job=$(grep -o 'allocation [0-9]*' salloc.out | grep -o '[0-9]*$') || fail "no job ID: $(cat salloc.out)"

owner() { stat -c '%u:%g %a' "$1"; }
[ "$(owner secret)" = "0:0 600" ] || fail "secret: $(owner secret)"
# round N KIND: step N of the allocation, the attacker on its folder
# (KIND=folder) or on its tracking file (KIND=file).
attacked=0
round() {
    local step=$1 kind=$2 dir name swapper swaps
    if [ "$kind" = folder ]; then dir=$TMP/race name=$job.$step; else dir=$TMP/race/$job.$step name=n1.0.csv; fi
    "$W/swap_link" "$dir" "$name" "$TMP/secret" >"swaps.$step" 2>&1 &
    swapper=$!
    (cd race && timeout 120 $IN_CTL "${NB[@]}" srun --jobid="$job" -N1 -n1 -t 1 --gpu-tracker="$TMP/race" \
        sleep 0.3) >"srun.$step" 2>&1 || fail "step $step: $(cat "srun.$step")"
    kill -TERM "$swapper"
    wait "$swapper" || fail "swapper of step $step: $(cat "swaps.$step")"
    swaps=$(cat "swaps.$step")
    [ "$(owner secret)" = "0:0 600" ] ||
        fail "step $step, $kind race ($swaps swaps): the root-owned 0600 file is now $(owner secret)"
    [ "$swaps" -gt 0 ] && attacked=$((attacked + 1))
    # What the plugin made, under whichever name it ended, is nobody's.
    for f in "race/$job.$step" "race/.swap-$job.$step" "race/$job.$step/n1.0.csv" \
        "race/$job.$step/.swap-n1.0.csv" "race/$job.$step/n1.0.json"; do
        if [ -e "$f" ] && [ ! -L "$f" ] && [ "$(stat -c %u "$f")" != 65534 ]; then
            fail "step $step: '$f' belongs to $(stat -c %u "$f"), not to the job's user"
        fi
    done
}
step=0
for _ in $(seq "$ROUNDS"); do
    for kind in $KINDS; do
        round $step "$kind"
        step=$((step + 1))
    done
done
# Each swapper swapped (the name existed while it ran), so every round was
# a race, not a step that ran before or after its attacker.
[ "$attacked" = "$step" ] || fail "only $attacked of $step steps were raced: $(cat swaps.*)"
# Steps were tracked despite the attacks (a step whose folder or file was
# swapped at the wrong moment is refused, and says so).
ls race/$job.*/n1.0.json >/dev/null 2>&1 || fail "no step was tracked: $(ls -laR race)"
$IN_CTL scancel "$job"
echo "ok"
