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
# DIR is given as a long spelling of the folder, as an attacker would give
# it: a plugin that made the folder and then chowned it by name (the bug
# this guards against) lost the folder race within 15 steps in each of five
# runs, where with DIR spelt plainly it won none of 150.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/_lib.sh"

PLUGIN=$GT_BUILD/gpu_tracker_spank.so
[ -f "$PLUGIN" ] || skip "no SPANK plugin in $GT_BUILD: it is built where libslurm-dev is installed, and not by sanitizer builds (slurmstepd cannot load them)"
SLURM_PLUGSTACK="required $PLUGIN st=0.05"
. "$HERE/_slurm.sh"

ROUNDS=${GT_RACE_ROUNDS:-30}         # of each race
KINDS=${GT_RACE_KINDS:-folder file} # one alone, to see each race fail
# nobody's client commands need the configuration and munge's socket.
chmod 755 "$TMP" munge
mkdir race
chown 65534:65534 race
# The folder as the job's user may spell it: down 600 folders and back up.
# Resolving a name in it walks 1,200 components first, so a plugin that
# acts twice by name (make, then chown) leaves the attacker a window as
# wide as a user could make it, not the microsecond between two calls.
deep=$(printf 'm/%.0s' $(seq 600))
mkdir -p "race/$deep"
chown -R 65534:65534 race
base=$TMP/race/$deep$(printf '../%.0s' $(seq 600))
printf 'secret\n' >secret
chmod 600 secret
NB=(setpriv --reuid=65534 --regid=65534 --clear-groups)
$IN_CTL "${NB[@]}" salloc --no-shell -N1 -w n1 -t 10 >salloc.out 2>&1 || fail "salloc: $(cat salloc.out)"
job=$(grep -o 'allocation [0-9]*' salloc.out | grep -o '[0-9]*$') || fail "no job ID: $(cat salloc.out)"

owner() { stat -c '%u:%g %a' "$1"; }
[ "$(owner secret)" = "0:0 600" ] || fail "secret: $(owner secret)"
# real PATH...: one of the paths is what it is, not a symbolic link; a
# folder for the folder race, a file for the other.
real() {
    local t=$1 p
    shift
    for p in "$@"; do [ ! -L "$p" ] && [ "$t" "$p" ] && return 0; done
    return 1
}
# round N KIND: step N of the allocation, the attacker on its folder
# (KIND=folder) or on its tracking file (KIND=file).  The step's task lives
# until the plugin has made what is attacked, so that every step is a race.
attacked=0
swapper=
# The swapper of a failed round is stopped before the cluster and $TMP go.
trap 'rc=$?; [ -n "$swapper" ] && kill -TERM "$swapper" 2>/dev/null && wait "$swapper"; (exit $rc); stop_all' EXIT
round() {
    local step=$1 kind=$2 dir name swaps srun_pid go=$TMP/race/.go-$1 d=race/$job.$1
    if [ "$kind" = folder ]; then dir=$TMP/race name=$job.$step; else dir=$TMP/race/$job.$step name=n1.0.csv; fi
    "$W/swap_link" "$dir" "$name" "$TMP/secret" >"swaps.$step" 2>&1 &
    swapper=$!
    (cd race && timeout 120 $IN_CTL "${NB[@]}" srun --jobid="$job" -N1 -n1 -t 1 --gpu-tracker="$base" \
        sh -c "until [ -e '$go' ]; do sleep 0.02; done") >"srun.$step" 2>&1 &
    srun_pid=$!
    made() {
        if [ "$kind" = folder ]; then real -d "$d" "race/.swap-$job.$step"; else real -f "$d/n1.0.csv" "$d/.swap-n1.0.csv"; fi
    }
    # (Each look can miss it, swapped under the other name between two tests.)
    local seen=
    for _ in $(seq 1200); do made && { seen=1; break; }; sleep 0.05; done
    [ -n "$seen" ] || fail "step $step: the plugin made no $kind in 60 s: $(cat "srun.$step"; ls -la race "$d" 2>&1)"
    touch "$go"
    wait "$srun_pid" || fail "step $step: $(cat "srun.$step")"
    kill -TERM "$swapper"
    wait "$swapper" || fail "swapper of step $step: $(cat "swaps.$step")"
    swapper=
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
ls race/$job.*/n1.0.json >/dev/null 2>&1 || fail "no step was tracked: $(ls -la race race/$job.*)"
$IN_CTL scancel "$job"
echo "ok"
