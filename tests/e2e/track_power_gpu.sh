# SPDX-License-Identifier: MIT
# Each GPU's power over time through the fake NVML library: a device without
# an energy counter drawing a constant 150 W gives exactly 150.0 in every
# row after the first; a device whose counter stands still gives exactly 0.0
# and, over the one interval in which it jumps by 2000 J, that over the
# interval.  The columns are named after the vendor's device index.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/_lib.sh"
SECS=2 . "$HERE/_gpu.sh"
same=$(for i in 1 2 3 4 5 6 7 8 9 10; do printf '{"used": 1000, "util": 100, "energy_mj": 1000000, "power_mw": 1, "compute": [{"pid_file": "main.pid", "mem": 10, "sm": 50}]},'; done)
cat >nvml.json <<JSON
{"devices": [
 {"uuid": "GPU-11111111-aaaa", "total": 17179869184,
  "samples": [$same
    {"used": 1000, "util": 100, "energy_mj": 3000000, "power_mw": 1,
     "compute": [{"pid_file": "main.pid", "mem": 10, "sm": 50}]}]},
 {"uuid": "GPU-22222222-bbbb", "total": 8589934592,
  "errors": {"nvmlDeviceGetTotalEnergyConsumption": 3},
  "samples": [{"used": 2000, "util": 10, "power_mw": 150000}]}
]}
JSON
track --tf=t.csv
# with_rapl (in _gpu.sh) gives one still package domain.
[ "$(sed -n 3p t.csv)" = "$(columns --energy),package_power_watts,gpu_0_power_watts,gpu_1_power_watts" ] ||
    fail "header: $(sed -n 3p t.csv)"
sed -n 3p t.csv | grep -q ',gpu_energy_joules,package_power_watts,gpu_0_power_watts,gpu_1_power_watts$' ||
    fail "header: $(sed -n 3p t.csv)"
# The power columns' places, after the metric table's: package, gpu-0 and
# gpu-1 watts (pw, g0, g1).
n=$(ncolumns --energy)
cols="-v pw=$((n + 1)) -v g0=$((n + 2)) -v g1=$((n + 3))"
sed -n 4p t.csv | awk -F, $cols '$pw != "" || $g0 != "" || $g1 != "" { exit 1 }' || fail "first row: $(sed -n 4p t.csv)"
awk -F, $cols 'NR > 4 {
    if ($pw != "0.0") { print "row " NR ": still package at " $pw " W"; bad = 1 }
    if ($g1 != "150.0") { print "row " NR ": gpu-1 at " $g1 " W, drawing 150"; bad = 1 }
    if ($g0 == "0.0") still++
    else if ($g0 > 0) moved++
    else { print "row " NR ": gpu-0 at " $g0 " W"; bad = 1 }
}
END {
    if (moved != 1) { print moved " rows with gpu-0 power, 1 jump"; bad = 1 }
    if (still < 1) { print "no still row"; bad = 1 }
    exit bad
}' t.csv >check.txt || fail "GPU power: $(cat check.txt)"
# The jump's row: 2000 J over an interval no longer than the whole run.
awk -F, $cols 'NR == 4 { t0 = $22 } NR > 4 && $g0 != "0.0" { p = $g0 } END { t = $22 - t0; exit !(p > 0 && 2000 / p <= t + 1) }' t.csv ||
    fail "gpu-0 power over the jump: $(cut -d, -f22,$((n + 2)) t.csv | tail -n +4 | tr '\n' ' ')"

# The plot: a chart per GPU, the integrated device's legend at exactly 150 W.
"$GT_BIN" plot --tf=t.csv -o p.html
for dom in package gpu_0 gpu_1; do
    grep -q "<g class=\"chart\" data-chart=\"Power: $dom\">" p.html || fail "no $dom power chart"
done
grep -q '>gpu_1 (max 150 W)<' p.html || fail "gpu_1 legend: $(grep -o '>gpu_1 (max[^<]*<' p.html)"

# --guuids: only the selected device's column.
track --guuids=GPU-22222222-bbbb --tf=u.sqlite
[ "$(sqlite3 u.sqlite 'select count(*) from pragma_table_info("data") where name like "gpu_%_power_watts"')" = 1 ] ||
    fail "--guuids columns: $(sqlite3 u.sqlite 'select name from pragma_table_info("data")' | tr '\n' ' ')"
[ "$(sqlite3 u.sqlite 'select count(*) from data where gpu_1_power_watts = 150.0')" = \
  "$(sqlite3 u.sqlite 'select count(*) - 1 from data')" ] || fail "sqlite gpu_1_power_watts"
echo ok
