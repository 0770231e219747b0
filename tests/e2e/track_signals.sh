# SPDX-License-Identifier: MIT
# SIGINT/SIGTERM to gpu-tracker reach the command; the report is printed
# and the tracking file is complete.
. "$(dirname "$0")/_lib.sh"
# Job control, so the background job does not start with SIGINT ignored;
# env resets a SIGINT that was already ignored when the suite started (a
# suite run in the background), which gpu-tracker rightly keeps ignored.
set -m
for sig in INT TERM; do
    rm -f t.csv
    # The command holds its memory until the signal ends it.
    env --default-signal=INT,TERM "$GT_BIN" --st=0.02 --tf=t.csv --overwrite -- "$W/touch_mem" 10 file=never >out.txt &
    pid=$!
    # The signal once the tracker has written 10 samples (so it is running
    # its command), however slowly a loaded machine starts it.
    wait_for lines_at_least t.csv 13
    kill -$sig $pid
    rc=0; wait $pid || rc=$?
    num=$(kill -l $sig)
    [ $rc = $((128 + num)) ] || fail "SIG$sig: exit $rc, expected $((128 + num))"
    grep -q "status code: -$num" out.txt || fail "SIG$sig: status line"
    grep -q "^Compute time:" out.txt || fail "SIG$sig: report"
    rows=$(($(wc -l <t.csv) - 3))
    [ $rows -ge 10 ] || fail "SIG$sig: $rows samples in the tracking file"
    tail -n 1 t.csv | awk -F, -v n="$(sed -n 3p t.csv | awk -F, "{ print NF }")" 'NF != n { exit 1 }' || fail "SIG$sig: last row is torn"
done
