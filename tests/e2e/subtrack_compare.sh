# SPDX-License-Identifier: MIT
# sub-track compare: the Python package's outputs for the reference sessions,
# the line-number warning, sessions without code blocks, --cconfig, and a
# one-line message with exit 2 for every bad input.
. "$(dirname "$0")/_lib.sh"
: "${GT_REF:?}"
R="$GT_REF/comparison"
cmp_() { "$GT_BIN" sub-track compare "$@"; }

# same_json GOT WANT: same keys in the same order, numbers within 1e-9.
same_json() {
    jq -en --slurpfile a "$1" --slurpfile b "$2" '
        ($a[0] | [paths]) == ($b[0] | [paths]) and
        ([$a[0] | .. | numbers] as $x | [$b[0] | .. | numbers] as $y |
         all(range($y | length); (($x[.] - $y[.]) | fabs) <= 1e-9 * ([($x[.] | fabs), ($y[.] | fabs)] | max)))' \
        >/dev/null || fail "$1 differs from $2"
}

for stat in mean max; do
    cmp_ -m A="$R/results-A.json" -m B="$R/results-B.json" --stat=$stat >out.txt 2>err.txt
    cmp -s out.txt "$R/comparison_$stat.txt" || fail "--stat=$stat text: $(diff out.txt "$R/comparison_$stat.txt" | head)"
    cmp_ -m A="$R/results-A.json" -m B="$R/results-B.json" --stat $stat -f json -o out.json 2>/dev/null
    same_json out.json "$R/comparison_$stat.json"
done

# Two warnings, one per pair of code blocks matched despite their line numbers.
[ "$(wc -l <err.txt)" = 2 ] || fail "expected two warnings: $(cat err.txt)"
grep -qxF 'gpu-tracker: warning: Code block name "tmp.py:9" of tracking session "A" matched with code block name "tmp.py:7" of tracking session "B" but they differ by line number. If these code blocks were not meant to match, their comparison will not be valid and their names must be disambiguated.' err.txt ||
    fail "warning text: $(head -1 err.txt)"
grep -qF '"tmp.py:38" of tracking session "A" matched with code block name "tmp.py:37" of tracking session "B"' err.txt ||
    fail "second warning: $(tail -1 err.txt)"
grep -qx $'\ttmp.py:7 -> tmp.py:9:' out.txt || fail "matched name in the compute-time section"

# analyze's results for the sub-tracking reference files are session A's:
# same code-block names, so no warning, and the same values (to 1e-6: the
# two files' compute times differ in the 8th digit).
cmp_ -m S="$GT_REF/sub-tracking/results.json" -m A="$R/results-A.json" -f json >sa.json 2>err.txt
[ ! -s err.txt ] || fail "S/A: unexpected stderr: $(cat err.txt)"
jq -e '[.. | objects | select(has("S")) | (keys == ["A", "S"]) and ((.S - .A) | fabs) <= 1e-6 * (.A | fabs)]
       | length > 100 and all' sa.json >/dev/null || fail "S/A should have the same values"

# Sessions without code blocks: overall results only, no warning.
cmp_ -m F="$R/results-F.json" -m G="$R/results-G.json" --stat=max >fg.txt 2>err.txt
[ ! -s err.txt ] || fail "F/G: unexpected stderr: $(cat err.txt)"
[ "$(tail -2 fg.txt)" = "$(printf 'Code Block Resource Usage:\nCode Block Compute Time:')" ] || fail "F/G text tail"
grep -A2 -x $'\tMain Ram:' fg.txt | tail -1 | grep -qx $'\t\t 1.57649306 1.98562202' || fail "F/G main ram"
cmp_ -m F="$R/results-F.json" -m G="$R/results-G.json" -f json >fg.json
[ "$(jq -c '[.code_block_resource_usage, .code_block_compute_time]' fg.json)" = '[{},{}]' ] || fail "F/G JSON blocks"
[ "$(jq -c '.overall_resource_usage.main_n_threads' fg.json)" = '{"F":13.96,"G":13.96}' ] || fail "F/G JSON overall"

# --cconfig gives the map and the statistic; the command line overrides both.
printf '{"file_path_map": {"A": "%s", "B": "%s"}, "statistic": "max"}' "$R/results-A.json" "$R/results-B.json" >c.json
cmp_ --cconfig=c.json >out.txt 2>/dev/null
cmp -s out.txt "$R/comparison_max.txt" || fail "--cconfig"
cmp_ --cconfig c.json --stat=mean >out.txt 2>/dev/null
cmp -s out.txt "$R/comparison_mean.txt" || fail "--stat should override the config"
cmp_ --cconfig=c.json -m B="$R/results-A.json" -m C="$R/results-A.json" -f json >abc.json
[ "$(jq -c '.overall_resource_usage.main_ram | keys_unsorted' abc.json)" = '["A","B","C"]' ] || fail "-m should replace B"
# B is now A's file: its blocks keep their own names and values.
jq -e '.code_block_compute_time["tmp.py:38"] | .A == .B and .B == 1.2065885066986084' abc.json >/dev/null ||
    fail "B should be A's file"

# Bad input: exit 2, one line that says what is wrong.
bad() { # expected-message-part, args...
    local want=$1 rc=0
    shift
    cmp_ "$@" >out.txt 2>err.txt || rc=$?
    [ $rc = 2 ] || fail "$*: exit $rc, expected 2"
    [ "$(wc -l <err.txt)" = 1 ] || fail "$*: expected one line: $(cat err.txt)"
    grep -qF -- "$want" err.txt || fail "$*: message '$(cat err.txt)' lacks '$want'"
    [ ! -s out.txt ] || fail "$*: wrote output"
}
bad "sessions have different numbers of code blocks: 'A' ('$R/results-A.json') has 4, 'F' ('$R/results-F.json') has 0" \
    -m A="$R/results-A.json" -m F="$R/results-F.json"
jq '.code_block_results[0].name = "W"' "$R/results-A.json" >renamed.json
bad "code block 'W' of session 'A' does not match code block 'X' of session 'B'" \
    -m A=renamed.json -m B="$R/results-B.json"
bad "invalid statistic 'median': valid statistics are 'min', 'max', 'mean', 'std'" \
    -m A="$R/results-A.json" --stat=median
bad "cannot read results file 'missing.json': No such file or directory" -m A="$R/results-A.json" -m B=missing.json
# The Python package's pickled results: pointed to the Python command line,
# with the warning that loading a pickle runs code from it.
printf '\200\004\225' >results.pkl
bad "results file 'results.pkl' is a Python pickle: compare pickles with \`python3 -m gpu_tracker sub-track compare\` \
(loading a pickle runs code from the file: only pickles you trust)" -m A="$R/results-A.json" -m B=results.pkl
bad "--format=pickle is written by \`python3 -m gpu_tracker sub-track compare\`" -m A="$R/results-A.json" -f pickle
head -c 100 "$R/results-A.json" >truncated.json
bad "results file 'truncated.json' is not valid JSON (line" -m A=truncated.json
echo '{"code_block_results": []}' >no-overall.json
bad "results file 'no-overall.json' has no 'overall' object" -m A=no-overall.json
jq 'del(.overall.main_ram.mean)' "$R/results-F.json" >no-mean.json
bad "results file 'no-mean.json': overall 'main_ram' has no number 'mean'" -m F="$R/results-F.json" -m X=no-mean.json
bad "no sessions to compare" --stat=max
bad "invalid value 'A' for -m: expected <name>=<file-path>" -m A
bad "invalid value '=x.json' for -m" -m =x.json
bad "unknown option '--bogus'; see 'gpu-tracker sub-track compare --help'" --bogus
bad "option '--help' takes no value" --help=yes
bad "option '--stat' needs a value" -m A="$R/results-A.json" --stat
bad "valid formats are 'text', 'json'" -m A="$R/results-A.json" -f xml
bad "cannot read config file 'nope.json'" --cconfig=nope.json
echo '[1]' >list.json
bad "config file 'list.json' is not a JSON object" --cconfig=list.json
echo '{"file_path_mp": {}}' >typo.json
bad "valid keys: file_path_map (an object), statistic (a string)" --cconfig=typo.json
echo '{"file_path_map": {"A": 1}}' >num.json
bad "file_path_map must map names to file paths" --cconfig=num.json

# An output file that cannot be written: exit 1, and nothing half-done.
rc=0; cmp_ -m F="$R/results-F.json" -o /nonexistent/out.txt 2>err.txt || rc=$?
[ $rc = 1 ] && grep -q "cannot write output file '/nonexistent/out.txt'" err.txt || fail "unwritable -o: exit $rc"

cmp_ --help | grep -q "^Usage:" || fail "--help"
