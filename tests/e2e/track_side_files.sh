#!/bin/bash
# SPDX-License-Identifier: MIT
# The side files of a CSV tracking file (--per-process: t.processes.csv,
# --per-gpu: t.gpus.csv): a refused run leaves none of its files behind,
# and --overwrite checks every file before it deletes any, so a side file
# that cannot be replaced refuses the run with the old files intact.
. "$(dirname "$0")/_lib.sh"

# st WANT ARGS...: gpu-tracker's exit status is WANT.
st() {
    local want=$1 rc=0
    shift
    "$GT_BIN" --quiet "$@" >out.txt 2>err.txt || rc=$?
    [ "$rc" = "$want" ] || fail "gpu-tracker $*: exit status $rc, not $want: $(cat err.txt)"
}

# A side file that exists refuses the run, and nothing is left behind: the
# next run, with the name free, is not refused over a file of the first.
echo keep >t.gpus.csv
st 2 --tf=t.csv --per-process --per-gpu -- touch ran
grep -q "'t.gpus.csv' already exists" err.txt || fail "existing side file: $(cat err.txt)"
[ ! -e ran ] && [ ! -e t.csv ] && [ ! -e t.processes.csv ] || fail "a refused run left files: $(ls)"
[ "$(cat t.gpus.csv)" = keep ] || fail "a refused run changed t.gpus.csv"
rm t.gpus.csv
st 0 --tf=t.csv --per-process --per-gpu -- true
[ -s t.csv ] && [ -s t.processes.csv ] && [ -s t.gpus.csv ] || fail "the run after: $(ls)"

# --overwrite with a side file that cannot be replaced (a folder): refused
# before the old tracking file is deleted.
mkdir o && echo old >o/t.csv && mkdir o/t.processes.csv
st 2 --tf=o/t.csv --overwrite --per-process -- touch ran
grep -q "cannot replace tracking file 'o/t.processes.csv': Is a directory" err.txt || fail "folder: $(cat err.txt)"
[ "$(cat o/t.csv)" = old ] || fail "--overwrite deleted the tracking file, then refused"
[ ! -e ran ] || fail "refused, but the command ran"

# ... or another user's file in a sticky folder (as /tmp), for nobody.
if [ "$(id -u)" != 0 ]; then
    skip_part "another user's side file" "needs root to run as nobody"
elif ! gt=$(nobody_path "$GT_BIN"); then
    skip_part "another user's side file" "user nobody cannot run this checkout's binary"
else
    chmod 755 "$TMP"
    mkdir -m 1777 sticky
    echo root >sticky/t.processes.csv
    setpriv --reuid=65534 --regid=65534 --clear-groups -- sh -c 'echo old >sticky/t.csv'
    rc=0
    setpriv --reuid=65534 --regid=65534 --clear-groups -- "$gt" --quiet --tf=sticky/t.csv --overwrite \
        --per-process -- true >out.txt 2>err.txt || rc=$?
    [ "$rc" = 2 ] || fail "sticky: exit $rc: $(cat err.txt)"
    grep -q "cannot replace tracking file 'sticky/t.processes.csv': Operation not permitted" err.txt ||
        fail "sticky: $(cat err.txt)"
    [ "$(cat sticky/t.csv)" = old ] && [ "$(cat sticky/t.processes.csv)" = root ] ||
        fail "sticky: a file was replaced"
fi
echo ok
