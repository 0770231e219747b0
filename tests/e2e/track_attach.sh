# SPDX-License-Identifier: MIT
# --attach follows a running process until it exits.
. "$(dirname "$0")/_lib.sh"
MIB=30
"$W/touch_mem" $MIB 1.5 &
pid=$!
sleep 0.3
"$GT_BIN" --attach=$pid --st=0.05 --ru=bytes -f json >out.txt
wait $pid
grep -qx "Resource tracking complete. Process $pid has exited." out.txt || fail "status line: $(head -1 out.txt)"
json_report out.txt >r.json
N=$((MIB * 1048576))
within "$(jget r.json .max_ram.main.private_rss)" $((N * 97 / 100)) $((N * 110 / 100)) "attached RSS"
rc=0; "$GT_BIN" --attach=999999999 2>err.txt || rc=$?
[ $rc = 2 ] || fail "attach to a missing PID: exit $rc"
