#!/bin/bash
# SPDX-License-Identifier: MIT
# The side files of a CSV tracking file (--per-process: t.processes.csv,
# --per-gpu: t.gpus.csv): a refused run, or one whose command cannot be
# started, leaves none of its files behind,
# and --overwrite checks every file before it deletes any, so a side file
# that cannot be replaced refuses the run with the old files intact.  They
# have the main file's protections (docs/guarantees.md): deleted mid-run,
# re-created at the end with every row; truncated by another program, no
# more rows, no NUL bytes, exit 1.
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

# A side file that passes the check but cannot be created (no inode left
# on a tmpfs of three: its root, t.csv, t.processes.csv): the files made
# before it are removed too (root only, to mount the tmpfs).
if [ "$(id -u)" = 0 ] && mkdir inodes && mount -t tmpfs -o size=1m,nr_inodes=3 tmpfs inodes 2>/dev/null; then
    trap 'umount "$TMP/inodes" 2>/dev/null || true; cleanup' EXIT
    st 2 --tf=inodes/t.csv --per-process --per-gpu -- touch ran
    grep -q "cannot create tracking file 'inodes/t.gpus.csv': No space left on device" err.txt ||
        fail "no inode for t.gpus.csv: $(cat err.txt)"
    [ ! -e ran ] && [ -z "$(ls inodes)" ] || fail "a run refused at its last side file left: $(ls inodes)"
    umount inodes
else
    skip_part "a side file that cannot be created" "mounting a tmpfs needs root"
fi

# A command that cannot be started: no sample was taken, and none of the
# run's files is left to refuse the next run.
for ext in csv sqlite; do
    st 127 --tf=n-$ext.$ext --per-process --per-gpu -- ./no-such-command
    [ -z "$(ls n-$ext.* 2>/dev/null)" ] || fail "a command that could not start left $(ls n-$ext.*)"
    st 0 --tf=n-$ext.$ext --per-process --per-gpu -- true
done

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

# until_ok CMD...: waits until CMD succeeds (120 s: something is stuck).
until_ok() {
    local i
    for i in $(seq 2400); do "$@" 2>/dev/null && return 0; sleep 0.05; done
    fail "timed out waiting for: $*"
}
# samples FILE: the timepoint rows of a CSV tracking file so far.
samples() { echo $(($(wc -l <"$1") - 3)); }
samples_at_least() { [ "$(samples "$1")" -ge "$2" ]; }
lines_at_least() { [ "$(wc -l <"$1")" -ge "$2" ]; }
# stamps FILE: the distinct timestamps (first column) of a side file's rows.
stamps() { tail -n +2 "$1" | cut -d, -f1 | sort -u | wc -l; }
waiting='until [ -e go ]; do sleep 0.01; done'

# Deleted mid-run: re-created at the end with a row set for every sample,
# those after the deletion included; exit 0.
rm -f go
"$GT_BIN" --quiet --st=0.02 --tf=g.csv --per-process -- sh -c "$waiting" >out.txt 2>err.txt &
tracker=$!
until_ok lines_at_least g.processes.csv 6
rm g.processes.csv
n=$(samples g.csv)
until_ok samples_at_least g.csv $((n + 10))
touch go
rc=0; wait $tracker || rc=$?
[ $rc = 0 ] || fail "side file deleted: exit $rc: $(cat err.txt)"
grep -q "tracking file 'g.processes.csv' was deleted while tracking; re-created with every sample" err.txt ||
    fail "side file deleted: message '$(cat err.txt)'"
[ "$(stamps g.processes.csv)" = "$(samples g.csv)" ] ||
    fail "side file deleted: rows of $(stamps g.processes.csv) samples, the tracking file has $(samples g.csv)"
# ... but never over a file that took its name meanwhile.
rc=0
"$GT_BIN" --quiet --st=0.01 --tf=taken.csv --per-process -- \
    sh -c 'sleep 0.1; rm taken.processes.csv; echo other >taken.processes.csv; sleep 0.1' >out.txt 2>err.txt || rc=$?
[ $rc = 1 ] || fail "side file deleted and name taken: exit $rc: $(cat err.txt)"
grep -q "tracking file 'taken.processes.csv' was deleted while tracking and cannot be re-created" err.txt ||
    fail "side file deleted and name taken: '$(cat err.txt)'"
[ "$(cat taken.processes.csv)" = other ] || fail "the file that took the side file's name was overwritten"

# Truncated by another program mid-run: no more rows (no NUL bytes, no rows
# without their header), tracking goes on, exit 1.
rm -f go
"$GT_BIN" --quiet --st=0.02 --tf=c.csv --per-process -- sh -c "$waiting" >out.txt 2>err.txt &
tracker=$!
until_ok lines_at_least c.processes.csv 6
: >c.processes.csv
n=$(samples c.csv)
until_ok samples_at_least c.csv $((n + 10))
touch go
rc=0; wait $tracker || rc=$?
[ $rc = 1 ] || fail "side file truncated: exit $rc: $(cat err.txt)"
grep -q "tracking file 'c.processes.csv' was truncated by another program while tracking" err.txt ||
    fail "side file truncated: message '$(cat err.txt)'"
[ ! -s c.processes.csv ] ||
    fail "side file truncated: $(wc -c <c.processes.csv) bytes after it, $(tr -d '\000' <c.processes.csv | wc -c) not NUL"
[ "$(samples c.csv)" -ge $((n + 10)) ] || fail "side file truncated: tracking stopped"
echo ok
