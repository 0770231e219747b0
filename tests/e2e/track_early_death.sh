# SPDX-License-Identifier: MIT
# The command's process killed while gpu-tracker sets up (it is held at a
# gate until the tracker is ready): gpu-tracker says how it ended and exits
# 127, instead of the bare "Broken pipe" of the gate it could not open.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/_lib.sh"
. "$HERE/_gpu.sh"
# The fake NVML holds the set-up in nvmlInit until go exists.
echo "{\"init_hold\": \"$TMP/go\", \"devices\": []}" >nvml.json
"$GT_BIN" --st=0.1 -- sleep 30 >out.txt 2>err.txt &
tracker=$!
in_init() { grep -q '^nvmlInit' nvml.log; }
wait_for in_init
held=
for p in $(pgrep -P "$tracker"); do # its children: the held command and the witness
    [ "$(cat "/proc/$p/comm" 2>/dev/null)" = gpu-tracker-wit ] || held=$p
done
[ -n "$held" ] || fail "no held child of gpu-tracker ($tracker)"
kill -KILL "$held"
touch go
rc=0
wait "$tracker" || rc=$?
[ "$rc" = 127 ] || fail "exit $rc, expected 127: $(cat err.txt)"
grep -q "^gpu-tracker: cannot run 'sleep': its process was killed by signal 9 (Killed) before it started$" err.txt ||
    fail "no reason given: $(cat err.txt)"
