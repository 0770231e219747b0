# SPDX-License-Identifier: MIT
# sub-track combine: per-process files of the reference session, combined,
# give the reference analysis; rows kept exactly; refusals with clear messages.
. "$(dirname "$0")/_lib.sh"
R="$GT_REF/sub-tracking"
F="$R/files-to-combine"

for ext in csv sqlite; do
    "$GT_BIN" sub-track combine --stf="all.$ext" -p "$F/1723811.sub-tracking.$ext" \
        -p "$F/1723814.sub-tracking.$ext" -p "$F/1723815.sub-tracking.$ext" -p "$F/main.sub-tracking.$ext"
    "$GT_BIN" sub-track analyze --tf="$R/tracking.csv" --stf="all.$ext" | cmp - "$R/results.txt" ||
        fail "$ext: analysis of the combined file differs from results.txt"
    mkdir "dir-$ext"
    cp "$F"/*."$ext" "dir-$ext/"
    # What SQLite and a run leave beside the files is not combined.
    : >"dir-$ext/main.sub-tracking.$ext-shm"
    : >"dir-$ext/main.sub-tracking.$ext-journal"
    echo notes >"dir-$ext/notes.txt"
    "$GT_BIN" sub-track combine --stf="dir.$ext" -p "dir-$ext"
done
# Rows keep their values, in the order given (files by name for a directory);
# numbers compared as doubles (an input may spell one with more digits).
norm() { awk -F, 'NF { printf "%s,%s,%s,%.17g\n", $1, $2, $3, $4 }'; }
expected=$(for f in "$F"/*.csv; do tail -n +2 "$f"; echo; done | norm)
[ "$(tail -n +2 all.csv | norm)" = "$expected" ] || fail "combined CSV rows differ from the inputs"
[ "$(head -1 all.csv)" = "process_id,code_block_name,position,timestamp" ] || fail "CSV header"
cmp all.csv dir.csv || fail "-p DIR differs from the files listed"
n=$(for f in "$F"/*.sqlite; do sqlite3 "$f" "select count(*) from data"; done | awk '{ s += $1 } END { print s }')
[ "$(sqlite3 all.sqlite "select count(*) from data")" = "$n" ] || fail "SQLite row count"
[ "$(sqlite3 all.sqlite "select typeof(process_id) || typeof(position) || typeof(timestamp) from data limit 1")" = integerintegerreal ] ||
    fail "SQLite column types"
[ "$(sqlite3 all.sqlite "select * from data")" = "$(sqlite3 dir.sqlite "select * from data")" ] ||
    fail "SQLite -p DIR differs"
# Names with commas, quotes and newlines survive.
printf 'process_id,code_block_name,position,timestamp\n7,"a,""b""\nc",0,1.5\n7,"a,""b""\nc",1,2.25\n' >odd.csv
"$GT_BIN" sub-track combine --stf=odd2.csv -p odd.csv
cmp odd.csv odd2.csv || fail "quoted names not kept"
"$GT_BIN" sub-track combine --stf=odd.sqlite -p odd2.csv 2>/dev/null && fail "csv into sqlite accepted"
"$GT_BIN" sub-track combine --stf=x.sqlite -p "$F/main.sub-tracking.sqlite"
[ "$(sqlite3 x.sqlite "select count(*) from data where code_block_name = 'tmp.py:38'")" = 20 ] || fail "bound names"

# expect_error STATUS PATTERN -- ARGS
expect_error() {
    local want=$1 pat=$2 rc=0
    shift 3
    "$GT_BIN" sub-track combine "$@" 2>err.txt >/dev/null || rc=$?
    [ "$rc" = "$want" ] || fail "$*: exit $rc, expected $want ($(cat err.txt))"
    grep -qF -- "$pat" err.txt || fail "$*: '$pat' not in: $(cat err.txt)"
}
before=$(md5sum all.csv)
expect_error 2 "'all.csv': it already exists" -- --stf=all.csv -p "$F/main.sub-tracking.csv"
[ "$(md5sum all.csv)" = "$before" ] || fail "existing output modified"
expect_error 2 "every file must end in '.csv'" -- --stf=new.csv -p "$F/main.sub-tracking.csv" -p "$F/main.sub-tracking.sqlite"
[ ! -e new.csv ] || fail "output created despite mixed extensions"
expect_error 2 "1723811.sub-tracking.sqlite" -- --stf=new.csv -p "$F"
expect_error 2 "'.csv' or '.sqlite'" -- --stf=new.txt -p "$F/main.sub-tracking.csv"
expect_error 2 "at least one -p" -- --stf=new.csv
expect_error 1 "missing.csv" -- --stf=new.csv -p missing.csv
[ ! -e new.csv ] || fail "output left behind after a failure"
printf 'process_id,name\n1,a\n' >cols.csv
expect_error 2 "no column 'code_block_name'" -- --stf=new.csv -p cols.csv
mkdir empty
expect_error 2 "holds no '.csv' or '.sqlite' file" -- --stf=new.csv -p empty
