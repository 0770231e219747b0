# SPDX-License-Identifier: MIT
# sub-track analyze on the Python package's reference files: results.txt
# byte for byte and results.json's layout with its numbers to 1e-9 relative,
# from the CSV and the SQLite pair alike; invalid files refused.
. "$(dirname "$0")/_lib.sh"
R="$GT_REF/sub-tracking"

# same_json A B: same keys in the same order, same strings and integers,
# numbers equal to 1e-9 relative (null where the other has null).
same_json() {
    [ "$(jq -c '[paths]' "$1")" = "$(jq -c '[paths]' "$2")" ] || fail "layout of $1 differs from $2"
    jq -en --slurpfile a "$1" --slurpfile b "$2" '
        def close($x; $y): if ($x|type) == "number" and ($y|type) == "number"
            then (($x - $y)|fabs) <= 1e-9 * ([($x|fabs), ($y|fabs)]|max)
            else $x == $y end;
        [$a[0] | paths(scalars)] as $ps
        | all($ps[]; . as $p | close($a[0] | getpath($p); $b[0] | getpath($p)))' >/dev/null ||
        fail "numbers of $1 differ from $2"
}

for ext in csv sqlite; do
    "$GT_BIN" sub-track analyze --tf="$R/tracking.$ext" --stf="$R/sub-tracking.$ext" >out.txt
    cmp out.txt "$R/results.txt" || { diff out.txt "$R/results.txt" | head; fail "$ext: text differs"; }
    "$GT_BIN" sub-track analyze --tf="$R/tracking.$ext" --stf="$R/sub-tracking.$ext" -f json -o out.json
    same_json out.json "$R/results.json"
    "$GT_BIN" sub-track analyze --tf "$R/tracking.$ext" --stf "$R/sub-tracking.$ext" --format=text --output=o.txt
    cmp o.txt "$R/results.txt" || fail "$ext: --output text differs"
done
# A tracking file of one format with marks of the other.
"$GT_BIN" sub-track analyze --tf="$R/tracking.sqlite" --stf="$R/sub-tracking.csv" | cmp - "$R/results.txt" ||
    fail "mixed formats"
# Marks paired as the Python package pairs them: each process's marks by
# time, whatever their order in the file, so the rows reversed give the same
# results; a recursive block's nested marks pair by time (two calls here).
{ head -1 "$R/sub-tracking.csv"; tail -n +2 "$R/sub-tracking.csv" | tac; } >reversed.csv
"$GT_BIN" sub-track analyze --tf="$R/tracking.csv" --stf=reversed.csv | cmp - "$R/results.txt" ||
    fail "marks out of file order not paired by time"
printf 'process_id,code_block_name,position,timestamp\n5,f,0,1745449610.0\n5,f,0,1745449611.0\n5,f,1,1745449613.0\n5,f,1,1745449617.0\n' >recursive.csv
"$GT_BIN" sub-track analyze --tf="$R/tracking.csv" --stf=recursive.csv -f json -o rec.json
[ "$(jq -c '.code_block_results[0] | [.num_calls, .compute_time.total]' rec.json)" = "[2,5]" ] ||
    fail "recursive block: $(jq -c '.code_block_results[0]' rec.json)"
# A wrong number must be caught by the comparison itself.
jq '.overall.main_ram.mean *= (1 + 1e-7)' "$R/results.json" >bad.json
if (same_json bad.json "$R/results.json") 2>/dev/null; then fail "same_json accepts a wrong number"; fi

# expect_error STATUS PATTERN... -- ARGS: gpu-tracker fails with STATUS and
# stderr matching every PATTERN.
expect_error() {
    local want=$1 rc=0
    shift
    local pats=()
    while [ "$1" != -- ]; do pats+=("$1"); shift; done
    shift
    "$GT_BIN" sub-track analyze "$@" >out.txt 2>err.txt || rc=$?
    [ "$rc" = "$want" ] || fail "$*: exit $rc, expected $want ($(cat err.txt))"
    [ ! -s out.txt ] || fail "$*: wrote results"
    for p in "${pats[@]}"; do grep -qF -- "$p" err.txt || fail "$*: '$p' not in: $(cat err.txt)"; done
}
expect_error 2 invalid1.csv "(1745449613.5325918, 1745449609.7528224)" "differing process IDs: 1723811 and 1723812" \
    -- --tf="$R/tracking.csv" --stf="$R/invalid1.csv"
expect_error 2 invalid2.csv "(1745449609.7528222, 1745449613.5325918)" "process ID 1723811" "start time greater than the stop time" \
    -- --tf="$R/tracking.csv" --stf="$R/invalid2.csv"
expect_error 2 "'x.txt'" "'.csv' or '.sqlite'" -- --tf="$R/tracking.csv" --stf=x.txt
expect_error 1 "missing.csv" "No such file" -- --tf="$R/tracking.csv" --stf=missing.csv
expect_error 2 "--tf" -- --stf="$R/sub-tracking.csv"
expect_error 2 "'yaml'" "'text' or 'json'" -- --tf="$R/tracking.csv" --stf="$R/sub-tracking.csv" -f yaml
expect_error 2 "'--bogus'" -- --bogus
expect_error 2 "--format=pickle is written by \`python3 -m gpu_tracker sub-track analyze\`" \
    -- --tf="$R/tracking.csv" --stf="$R/sub-tracking.csv" -f pickle -o r.pkl
[ ! -e r.pkl ] || fail "a pickle file was created"
printf 'process_id,code_block_name,timestamp\n1,a,2.0\n' >nopos.csv
expect_error 2 "nopos.csv" "no column 'position'" -- --tf="$R/tracking.csv" --stf=nopos.csv
printf 'process_id,code_block_name,position,timestamp\n1,a,0,2.0\n1,a,1,oops\n' >nan.csv
expect_error 2 "nan.csv" "line 3" "'timestamp'" "oops" -- --tf="$R/tracking.csv" --stf=nan.csv
printf 'process_id,code_block_name,position,timestamp\n1,a,0,2.0\n1,a,1,3.0\n1,a,1,4.0\n' >lone.csv
expect_error 2 "lone.csv" "'a'" "stop at 4.0" "no partner" -- --tf="$R/tracking.csv" --stf=lone.csv
printf 'process_id,code_block_name,position,timestamp\n1,a,1,2.0\n1,a,0,3.0\n1,a,1,4.0\n' >swap.csv
expect_error 2 "swap.csv" "(2.0, 3.0)" "start time greater than the stop time" -- --tf="$R/tracking.csv" --stf=swap.csv
printf 'process_id,code_block_name,position,timestamp\n1,a,2,2.0\n' >pos.csv
expect_error 2 "pos.csv" "row 1" "position" -- --tf="$R/tracking.csv" --stf=pos.csv
sqlite3 empty.sqlite 'create table other (x int)'
expect_error 2 "empty.sqlite" "'data'" -- --tf="$R/tracking.csv" --stf=empty.sqlite
