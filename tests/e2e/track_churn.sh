# SPDX-License-Identifier: MIT
# Processes that appear and vanish between two readings: a shell starting
# hundreds of short-lived commands, sampled every millisecond.  No crash, no
# warning beyond the GPU one, no negative or torn figure in any sample.
. "$(dirname "$0")/_lib.sh"
with_rapl
# After the churn, the command waits for 20 more rows, however slowly the
# machine samples.
"$GT_BIN" --st=0.001 --tf=c.csv -f json -- sh -c "for i in \$(seq 300); do /bin/true; done; '$W/touch_mem' 0 rows=20@c.csv" \
    >out.txt 2>err.txt
json_report out.txt >r.json
[ "$(grep -vc 'GPU' err.txt)" = 0 ] || fail "unexpected messages: $(cat err.txt)"
rows=$(($(wc -l <c.csv) - 3))
[ "$rows" -ge 20 ] || fail "$rows samples"
# The metric table's columns, then with_rapl's one power column.
[ "$(sed -n 3p c.csv)" = "$(columns --energy),package_power_watts" ] || fail "header: $(sed -n 3p c.csv)"
awk -F, -v n=$(($(ncolumns --energy) + 1)) 'NR > 3 && NF != n { print "torn row " NR; exit 1 }
         NR > 3 { for (i = 1; i <= NF; i++) if ($i ~ /^-/) { print "negative cell " i " in row " NR; exit 1 } }' c.csv ||
    fail "bad tracking file"
jq -e '[.. | numbers | select(. < 0)] | length == 0' r.json >/dev/null || fail "negative figure in the report"
[ "$(jget r.json '.cpu_utilization.descendants_n_threads >= 1')" = true ] || fail "no descendant ever seen"
