#!/bin/bash
# SPDX-License-Identifier: MIT
# Every command's output file (-o of track, merge, sub-track analyze and
# compare, plot; combine's --stf): refused when it is an input however
# spelt (relative, ./, d/.., absolute, a symbolic or hard link) or a file
# kept beside one (SQLite's -wal, -journal, -shm; x.processes.csv and
# x.gpus.csv of a tracking file x.csv), with every input left as it was;
# written whole or not at all, so a full disk or the file-size limit leaves
# the old file as it was, with exit 1 and the reason; a file the user may
# not write is refused although the folder lets them replace it.
. "$(dirname "$0")/_lib.sh"
R="$GT_REF/sub-tracking"

cp "$R/tracking.csv" t.csv
cp "$R/tracking.sqlite" t.sqlite
cp "$R/sub-tracking.csv" s.csv
cp "$GT_REF/comparison/results-A.json" r.json
printf '{"file_path_map": {"a": "r.json"}}\n' >c.json
mkdir d
ln -s ../t.csv d/link.csv
ln t.csv hard.txt
ln -s r.json r-link.json
ln t.csv t-hard.svg
inputs="t.csv t.sqlite s.csv r.json c.json"
sums=$(md5sum $inputs)

# refused WHAT ARGS...: exit 2, the message, no input changed, no file left.
refused() {
    local what=$1 rc
    shift
    set +e
    "$GT_BIN" "$@" >out.txt 2>err.txt
    rc=$?
    set -e
    [ "$rc" = 2 ] || fail "$what: exit $rc: $(cat err.txt)"
    grep -q "must be different files" err.txt || fail "$what: $(cat err.txt)"
    [ "$(md5sum $inputs)" = "$sums" ] || fail "$what: an input changed"
    ! ls ./*.tmp.* d/*.tmp.* 2>/dev/null || fail "$what: a temporary file is left"
}

for o in t.csv ./t.csv "$TMP/t.csv" d/../t.csv d/link.csv hard.txt t.sqlite ./t.sqlite t.sqlite-wal \
    t.sqlite-journal t.sqlite-shm t.processes.csv ./t.gpus.csv; do
    refused "merge -o $o" merge t.csv t.sqlite -o "$o"
done
refused "merge DIR -o link" merge d --output=d/link.csv
for o in t.csv ./t.csv hard.txt d/link.csv s.csv "$TMP/s.csv" s.processes.csv; do
    refused "analyze -o $o" sub-track analyze --tf=t.csv --stf=s.csv -o "$o"
done
for o in r.json ./r.json r-link.json "$TMP/r.json"; do
    refused "compare -o $o" sub-track compare -m a=r.json -m b=./r.json -o "$o"
done
refused "compare --cconfig -o" sub-track compare --cconfig=c.json --output=./c.json
refused "compare, config's file" sub-track compare --cconfig=c.json -o r-link.json
refused "plot -o hard link" plot --tf=t.csv --stf=s.csv -o t-hard.svg
refused "combine --stf=input" sub-track combine --stf=./s.csv -p s.csv
for o in t2.processes.csv ./t2.gpus.csv; do
    refused "track -o $o" --tf=t2.csv --per-process -o "$o" -- true
    [ ! -e t2.csv ] && [ ! -e t2.processes.csv ] || fail "track -o $o: ran"
done
refused "track -o t2.sqlite-wal" --tf=t2.sqlite -o t2.sqlite-wal -- true

# The same commands with an output of their own work.
"$GT_BIN" merge t.csv t.sqlite -o m.txt
"$GT_BIN" sub-track analyze --tf=t.csv --stf=s.csv -o a.txt
"$GT_BIN" sub-track compare -m a=r.json -m b=r.json -o c.txt 2>/dev/null
"$GT_BIN" plot --tf=t.csv -o p.svg
for f in m.txt a.txt c.txt p.svg; do [ -s "$f" ] || fail "no output $f"; done

# full WHAT FILE ARGS...: a write that fails leaves FILE's old contents,
# exits 1 and says why.
full() {
    local what=$1 file=$2 rc
    shift 2
    cp "$file" old
    set +e
    "$@" 2>err.txt >/dev/null
    rc=$?
    set -e
    [ "$rc" = 1 ] || fail "$what: exit $rc: $(cat err.txt)"
    grep -Eq "No space left on device|File too large" err.txt || fail "$what: $(cat err.txt)"
    cmp -s old "$file" || fail "$what: the old file was changed ($(wc -c <"$file") bytes)"
    ! ls "$(dirname "$file")"/*.tmp.* 2>/dev/null || fail "$what: a temporary file is left"
}

# The file-size limit (1 KiB, each output longer): the write fails with
# EFBIG, SIGXFSZ ignored as a shell can leave it.
limited() { (trap '' XFSZ && ulimit -f 1 && exec "$GT_BIN" "$@"); }
for f in m.txt a.txt c.txt p.svg; do printf 'old %s\n' "$f" >"$f"; done
full "merge, ulimit -f" m.txt limited merge t.csv t.sqlite -o m.txt
full "analyze, ulimit -f" a.txt limited sub-track analyze --tf=t.csv --stf=s.csv -o a.txt
full "compare, ulimit -f" c.txt limited sub-track compare -m a=r.json -m b=r.json -o c.txt
full "plot, ulimit -f" p.svg limited plot --tf=t.csv -o p.svg
full "track, ulimit -f" m.txt limited --quiet -o m.txt -- true

# A full disk: a small tmpfs filled up (root only).
if [ "$(id -u)" = 0 ] && mkdir disk && mount -t tmpfs -o size=64k tmpfs disk 2>/dev/null; then
    trap 'umount "$TMP/disk" 2>/dev/null || true; cleanup' EXIT
    for f in m.txt a.txt c.txt p.svg; do printf 'old %s\n' "$f" >"disk/$f"; done
    dd if=/dev/zero of=disk/fill bs=1k count=64 2>/dev/null || true
    full "merge, full disk" disk/m.txt "$GT_BIN" merge t.csv t.sqlite -o disk/m.txt
    full "analyze, full disk" disk/a.txt "$GT_BIN" sub-track analyze --tf=t.csv --stf=s.csv -o disk/a.txt
    full "compare, full disk" disk/c.txt "$GT_BIN" sub-track compare -m a=r.json -m b=r.json -o disk/c.txt
    full "plot, full disk" disk/p.svg "$GT_BIN" plot --tf=t.csv -o disk/p.svg
    full "track, full disk" disk/m.txt "$GT_BIN" --quiet -o disk/m.txt -- true
    umount disk
else
    skip_part "full disk" "mounting a tmpfs needs root"
fi

# Another user's file in a folder anyone may write (not sticky): rename()
# could replace it, but the user may not write it, so it is refused.
if [ "$(id -u)" != 0 ]; then
    skip_part "another user's file" "needs root to run as nobody"
elif ! gt=$(nobody_path "$GT_BIN"); then
    skip_part "another user's file" "user nobody cannot run this checkout's binary"
else
    chmod 755 "$TMP"
    chmod 644 $inputs
    mkdir -m 777 shared
    for f in m.txt p.svg; do printf 'root %s\n' "$f" >"shared/$f"; done
    chmod 644 shared/*
    as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups -- "$gt" "$@" >/dev/null 2>err.txt; }
    for args in "merge t.csv -o shared/m.txt" "plot --tf=t.csv -o shared/p.svg" "--quiet -o shared/m.txt -- true"; do
        set +e
        as_nobody $args
        rc=$?
        set -e
        [ "$rc" != 0 ] || fail "nobody: $args: exit 0"
        grep -q "Permission denied" err.txt || fail "nobody: $args: $(cat err.txt)"
    done
    [ "$(cat shared/m.txt)" = "root m.txt" ] && [ "$(cat shared/p.svg)" = "root p.svg" ] ||
        fail "nobody replaced root's file"
    ! ls shared/*.tmp.* 2>/dev/null || fail "nobody: a temporary file is left"
    # A new file in the same folder is written.
    setpriv --reuid=65534 --regid=65534 --clear-groups -- "$gt" merge t.csv -o shared/own.txt
    grep -q 'Peak RAM' shared/own.txt || fail "nobody's own report"
fi
echo "ok"
