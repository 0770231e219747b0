# SPDX-License-Identifier: MIT
# The report file (-o): nothing under its name is written or truncated
# before every check has passed and the report is complete; it cannot be
# the tracking file; its descriptor never reaches the command, even when
# gpu-tracker starts with stdout closed.  A reader that closes our stdout
# does not change the exit status: the command's own status wins.
. "$(dirname "$0")/_lib.sh"

st() { # expected status, then gpu-tracker's arguments
    local want=$1 rc=0
    shift
    "$GT_BIN" "$@" >out.txt 2>err.txt || rc=$?
    [ "$rc" = "$want" ] || fail "gpu-tracker $*: exit status $rc, not $want: $(cat err.txt)"
}

# -o and --tf naming one file, however spelt: refused, the file untouched,
# nothing run.
echo keep >keep.csv
mkdir d
for o in keep.csv ./keep.csv d/../keep.csv "$PWD/keep.csv"; do
    st 2 -o "$o" --tf=keep.csv -- touch ran
    grep -q "must be different files" err.txt || fail "-o $o --tf=keep.csv: $(cat err.txt)"
    st 2 -o "$o" --tf=keep.csv --overwrite -- touch ran
    [ "$(cat keep.csv)" = keep ] || fail "-o $o --tf=keep.csv emptied or replaced keep.csv"
done
ln -s keep.csv link.csv
st 2 -o link.csv --tf=keep.csv --overwrite -- touch ran
[ "$(cat keep.csv)" = keep ] || fail "a link to the tracking file as -o changed it"
[ ! -e ran ] || fail "the command ran although the options were refused"

# Another check refusing to run (a tracking file that exists): an existing
# report is left as it was, and no temporary file is left beside it.
echo "old report" >r.txt
st 2 -o r.txt --tf=keep.csv -- touch ran
[ "$(cat r.txt)" = "old report" ] || fail "a refused run truncated the -o file"
[ "$(ls)" = "$(printf 'd\nerr.txt\nkeep.csv\nlink.csv\nout.txt\nr.txt')" ] || fail "files left behind: $(ls)"
# A command that cannot be started: the report is not written either.
st 127 -o r.txt -- ./no-such-command
[ "$(cat r.txt)" = "old report" ] || fail "a command that could not start truncated the -o file"

# A successful run replaces the file whole, with the mode it had.
chmod 640 r.txt
st 0 --st=0.05 -o r.txt -- true
grep -q "^Max RAM" r.txt || fail "no report in r.txt: $(cat r.txt)"
[ "$(stat -c %a r.txt)" = 640 ] || fail "the report's mode changed to $(stat -c %a r.txt)"
st 0 --st=0.05 -o new.txt -- true
[ "$(stat -c %a new.txt)" = "$(printf '%o' $((0666 & ~$(umask))))" ] || fail "new report mode $(stat -c %a new.txt)"

# The command never holds the report's descriptor.
st 0 --st=0.05 -o r.txt -- ls -l /proc/self/fd
grep '/r\.txt' out.txt && fail "the command inherited the report's descriptor"
# ... not even as its stdout when gpu-tracker starts with stdout closed.
rc=0
"$GT_BIN" --st=0.05 -o r.txt -- sh -c 'echo from-the-command' >&- 2>err.txt || rc=$?
[ "$rc" = 0 ] || fail "with stdout closed: exit status $rc: $(cat err.txt)"
grep -q "from-the-command\|Resource tracking complete" r.txt && fail "stdout's output went into the report: $(cat r.txt)"
grep -q "^Max RAM" r.txt || fail "with stdout closed: no report in r.txt"

# A reader that closes the pipe early: no SIGPIPE death (141), the
# command's status is the exit status, with or without -o.
# The command ends once the reader has closed its end, however slowly the
# machine runs the reader.
for want in 0 3; do
    rm -f closed
    "$GT_BIN" --st=0.05 --disable-logs -- sh -c "until [ -e closed ]; do sleep 0.01; done; exit $want" 2>err.txt |
        { exec 0<&-; touch closed; }
    rc=${PIPESTATUS[0]}
    [ "$rc" = "$want" ] || fail "into a closed pipe: exit status $rc, not $want: $(cat err.txt)"
    [ ! -s err.txt ] || fail "into a closed pipe: $(cat err.txt)"
done

# A report file the user may write in a folder where they may not create a
# temporary file: written in place, still untouched by a refused run, and
# cut to the new report's length.  (Run as nobody; root may create files
# anywhere.)
in_place() { # gpu-tracker, command prefix...
    local gt=$1 rc=0
    shift
    mkdir ro
    head -c 100000 /dev/zero | tr '\0' x >ro/rep.txt
    chmod 666 ro/rep.txt
    chmod 755 ro "$TMP"
    [ "$(id -u)" = 0 ] || chmod 555 ro
    "$@" "$gt" -o ro/rep.txt --tf=keep.csv -- true >out.txt 2>err.txt || rc=$?
    [ "$rc" = 2 ] || fail "in place, refused run: exit status $rc: $(cat err.txt)"
    [ "$(wc -c <ro/rep.txt)" = 100000 ] || fail "in place: a refused run changed the report file"
    rc=0
    "$@" "$gt" --st=0.05 --disable-logs -o ro/rep.txt -- true >out.txt 2>err.txt || rc=$?
    [ "$rc" = 0 ] || fail "in place: exit status $rc: $(cat err.txt)"
    grep -q "^Max RAM" ro/rep.txt || fail "in place: no report"
    grep -q xxxx ro/rep.txt && fail "in place: the old content was not cut off"
    [ "$(ls ro)" = rep.txt ] || fail "in place: files left behind: $(ls ro)"
}
if [ "$(id -u)" != 0 ]; then
    in_place "$GT_BIN"
elif gt=$(nobody_path "$GT_BIN"); then
    in_place "$gt" setpriv --reuid=65534 --regid=65534 --clear-groups
else
    skip_part "a report file in a folder nobody may not write" "it runs as user nobody, who cannot run this checkout's binaries"
fi
