#!/bin/bash
# SPDX-License-Identifier: MIT
# An input that is not a regular file (a FIFO, which would block the open
# until a writer came; a device; a folder) is refused at once by every
# command that reads one: merge, sub-track analyze, combine and compare,
# plot, --tconfig and --cconfig, with "not a regular file" and the file
# named.  A hang is stopped after 60 s, which no refusal comes near.
. "$(dirname "$0")/_lib.sh"
R="$GT_REF/sub-tracking"
mkfifo f.csv f.sqlite f.json
mkdir d.json

# refused WHAT FILE ARGS...: gpu-tracker ARGS fails at once, naming FILE.
refused() {
    local what=$1 file=$2 rc=0
    shift 2
    timeout 60 "$GT_BIN" "$@" >out.txt 2>err.txt </dev/null || rc=$?
    [ $rc != 124 ] || fail "$what: hung on '$file'"
    [ $rc != 0 ] || fail "$what: exit 0"
    grep -q "'$file': not a regular file" err.txt || fail "$what: $(cat err.txt)"
}

refused "merge CSV" f.csv merge f.csv
refused "merge SQLite" f.sqlite merge f.sqlite
refused "merge, second file" f.csv merge "$R/tracking.csv" f.csv
refused "analyze --tf" f.csv sub-track analyze --tf=f.csv --stf="$R/sub-tracking.csv"
refused "analyze --stf" f.csv sub-track analyze --tf="$R/tracking.csv" --stf=f.csv
refused "combine" f.csv sub-track combine --stf=new.csv -p f.csv
[ ! -e new.csv ] || fail "combine: refused, but new.csv was made"
refused "plot --tf" f.csv plot --tf=f.csv -o p.svg
refused "plot --stf" f.csv plot --tf="$R/tracking.csv" --stf=f.csv -o p.svg
refused "compare -m" f.json sub-track compare -m a=f.json
refused "compare -m folder" d.json sub-track compare -m a=d.json
refused "compare --cconfig" f.json sub-track compare --cconfig=f.json
refused "compare --cconfig device" /dev/zero sub-track compare --cconfig=/dev/zero
refused "--tconfig" f.json --tconfig=f.json -- touch ran
refused "--tconfig folder" d.json --tconfig=d.json -- touch ran
[ ! -e ran ] || fail "--tconfig refused, but the command ran"
echo ok
