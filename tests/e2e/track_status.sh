# SPDX-License-Identifier: MIT
# Exit statuses: the command's own, 128+N for a signal, 127 when it cannot
# be started; a command that exits at once still gets a full report.
. "$(dirname "$0")/_lib.sh"
rc=0; "$GT_BIN" -e "sh -c 'exit 3'" >out.txt || rc=$?
[ $rc = 3 ] || fail "exit status $rc, expected 3"
grep -qx "Resource tracking complete. Process completed with status code: 3" out.txt || fail "status line"
grep -q "^Compute time:" out.txt || fail "report missing"

rc=0; "$GT_BIN" -- "$W/sigself" 9 >out.txt || rc=$?
[ $rc = 137 ] || fail "killed by SIGKILL: exit $rc, expected 137"
grep -q "status code: -9" out.txt || fail "signal status line"

rc=0; "$GT_BIN" -e "/nonexistent/cmd arg" >out.txt 2>err.txt || rc=$?
[ $rc = 127 ] || fail "missing command: exit $rc"
grep -q "cannot run '/nonexistent/cmd'" err.txt || fail "missing command message"
[ ! -s out.txt ] || fail "no report expected for a command that never ran"

rc=0; "$GT_BIN" --st=0.5 --tf=quick.csv -- true >out.txt || rc=$?
[ $rc = 0 ] || fail "true: exit $rc"
rows=$(($(wc -l <quick.csv) - 3))
[ $rows -ge 2 ] || fail "a command shorter than one interval has $rows samples, expected >= 2"

# --disable-logs: nothing but the report, not even the GPU warning.
"$GT_BIN" --disable-logs -- true >out.txt 2>err.txt
[ ! -s err.txt ] || fail "--disable-logs still wrote: $(cat err.txt)"
