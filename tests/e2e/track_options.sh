# SPDX-License-Identifier: MIT
# Option errors: one line naming the problem and the valid values, exit 2,
# nothing run.  --tconfig applies and the command line overrides it.
. "$(dirname "$0")/_lib.sh"
bad() { # expected-message-part, args...
    local want=$1 rc=0
    shift
    "$GT_BIN" "$@" -- touch ran.marker >out.txt 2>err.txt || rc=$?
    [ $rc = 2 ] || fail "$*: exit $rc, expected 2"
    [ ! -e ran.marker ] || fail "$*: the command ran"
    [ "$(wc -l <err.txt)" = 1 ] || fail "$*: expected one line: $(cat err.txt)"
    grep -q -- "$want" err.txt || fail "$*: message '$(cat err.txt)' lacks '$want'"
}
bad "'kilobytes'" --ru=kb
bad "'terabytes'" --gru=huge
bad "'days'" --tu=weeks
bad "at least 0.001" --st=0
bad "at least 0.001" --st=-1
bad "at least 0.001" --st=abc
# Bounded above too: 1e19 s overflowed the wake-up time into a busy loop.
bad "at most 86400" --st=1e19
bad "at most 86400" --st=86400.5
echo '{"sleep_time": 1e300}' >huge.json
bad "at most 86400" --tconfig=huge.json
echo '{"n_expected_cores": 1e300}' >cores.json
bad "positive integer" --tconfig=cores.json
bad "positive integer" --nec=99999999999
bad "positive integer" --attach=4294967297
bad "positive integer" --nec=0
bad "'nvidia', 'amd'" --gb=intel
bad "'text', 'json'" -f xml
bad "unknown option '--bogus'" --bogus
bad "needs a value" --st
echo '{"sleep_time": 0.5,' >broken.json
bad "not a JSON object" --tconfig=broken.json
echo '{"sleep_tme": 0.5}' >typo.json
bad "valid keys" --tconfig=typo.json
bad "cannot read config file" --tconfig=missing.json
echo '{"ram_unit": "kb"}' >unit.json
bad "'bytes', 'kilobytes'" --tconfig=unit.json
echo '{"sleep_time": 0}' >zero.json
bad "at least 0.001" --tconfig=zero.json
echo '{"time_unit": 5}' >type.json
bad "valid keys" --tconfig=type.json
bad "positive integer" --nec=abc
# A percent of one core: 0 would stop the walks, above 100 is more than a core.
bad "invalid value '0' for --walk-budget" --walk-budget=0
bad "invalid value '-1' for --walk-budget" --walk-budget=-1
bad "invalid value '101' for --walk-budget" --walk-budget=101
bad "invalid value 'abc' for --walk-budget" --walk-budget=abc
bad "above 0 and at most 100" --walk-budget=nan
echo '{"walk_budget": 0}' >walk0.json
bad "for walk_budget: must be a percent" --tconfig=walk0.json
echo '{"walk_budget": "5"}' >walkstr.json
bad "valid keys" --tconfig=walkstr.json
bad "positive integer" --attach=abc
rc=0; "$GT_BIN" -e "touch ran.marker 'unbalanced" >out.txt 2>err.txt || rc=$?
[ $rc = 2 ] && [ ! -e ran.marker ] && grep -q "unterminated single quote" err.txt || fail "unbalanced quote: exit $rc"
bad "only one of" -e true
rc=0; "$GT_BIN" >out.txt 2>err.txt || rc=$?
[ $rc = 2 ] && [ "$(wc -l <err.txt)" = 1 ] && grep -q "nothing to track" err.txt || fail "no command: exit $rc"

cat >cfg.json <<'JSON'
{"sleep_time": 0.05, "ram_unit": "megabytes", "gpu_ram_unit": "megabytes", "time_unit": "seconds", "n_expected_cores": 2}
JSON
"$GT_BIN" --tconfig=cfg.json --ru=kilobytes -f json -o rep.json -- "$W/touch_mem" 5 0.1 >out.txt
grep -qx "Resource tracking complete. Process completed with status code: 0" out.txt || fail "status line"
[ "$(wc -l <out.txt)" = 1 ] || fail "-o should keep the report off stdout"
[ "$(jget rep.json .max_ram.unit)" = kilobytes ] || fail "command line should override the config"
[ "$(jget rep.json .max_gpu_ram.unit)" = megabytes ] || fail "config gpu_ram_unit"
[ "$(jget rep.json .compute_time.unit)" = seconds ] || fail "config time_unit"
[ "$(jget rep.json .cpu_utilization.n_expected_cores)" = 2 ] || fail "config n_expected_cores"

# A valid budget, from the command line and from the config (the same
# percent), runs the command and reports.
"$GT_BIN" --walk-budget=5 --st=0.05 --disable-logs -f json -o walk.json -- "$W/touch_mem" 5 0.1 >out.txt
jget walk.json .max_ram.main.total_rss >/dev/null || fail "--walk-budget=5: no report"
echo '{"walk_budget": 5, "sleep_time": 0.05}' >walk5.json
"$GT_BIN" --tconfig=walk5.json --walk-budget=100 --disable-logs -- true >out.txt || fail '"walk_budget": 5 refused'
grep -q "status code: 0" out.txt || fail '"walk_budget": 5: no status line'

# "overwrite" in the config file is read as given: false keeps an existing
# tracking file (refused, untouched), true replaces it.
echo keep >t.csv
echo '{"overwrite": false, "tracking_file": "t.csv"}' >keep.json
rc=0; "$GT_BIN" --tconfig=keep.json -- touch ran.marker >out.txt 2>err.txt || rc=$?
[ $rc = 2 ] && [ ! -e ran.marker ] && grep -q "already exists" err.txt || fail '"overwrite": false: exit $rc'
[ "$(cat t.csv)" = keep ] || fail '"overwrite": false replaced the tracking file'
echo '{"overwrite": true, "tracking_file": "t.csv"}' >replace.json
"$GT_BIN" --tconfig=replace.json --st=0.05 --disable-logs -- true >out.txt
head -c 200 t.csv | grep -q "ram_unit" || fail '"overwrite": true did not replace the tracking file'

"$GT_BIN" --help | grep -q -- "--tconfig=<config-file>" || fail "help"
"$GT_BIN" -v | grep -q "^gpu-tracker [0-9]" || fail "version"
"$GT_BIN" --execute "sh -c 'echo \"a b\" > words.txt'" >/dev/null
[ "$(cat words.txt)" = "a b" ] || fail "-e quoting"
