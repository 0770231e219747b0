# SPDX-License-Identifier: MIT
# --attach follows a running process until it exits.
. "$(dirname "$0")/_lib.sh"
MIB=30
# The process has touched its memory (its RSS says so) before the tracker
# attaches, and holds it until the tracker has written three rows (two
# samples wholly while attached), however slowly a loaded machine runs it.
"$W/touch_mem" $MIB file=release &
pid=$!
touched() { [ "$(awk '/^VmRSS:/ { print $2 }' /proc/$pid/status)" -ge $((MIB * 1024)) ]; }
wait_for touched
"$GT_BIN" --attach=$pid --st=0.05 --ru=bytes -f json --tf=t.csv >out.txt &
tracker=$!
wait_for lines_at_least t.csv 6
touch release
wait $tracker
wait $pid
grep -qx "Resource tracking complete. Process $pid has exited." out.txt || fail "status line: $(head -1 out.txt)"
json_report out.txt >r.json
N=$((MIB * 1048576))
within "$(jget r.json .max_ram.main.private_rss)" $((N * 97 / 100)) $((N * 110 / 100)) "attached RSS"
rc=0; "$GT_BIN" --attach=999999999 2>err.txt || rc=$?
[ $rc = 2 ] || fail "attach to a missing PID: exit $rc"
