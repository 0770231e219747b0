# SPDX-License-Identifier: MIT
# Power over time from a fixture RAPL tree (GT_SYSFS_ROOT): one column per
# domain kind after the energy columns, empty in the first row (no interval
# yet), exactly 0.0 over intervals in which a counter stood still, and over
# the interval in which counters moved, each domain's joules over the same
# interval length (one of them through its wrap).  DRAM energy is also
# attributed by memory share: the tracked tree's RSS over the used system
# RAM at each sample, which the tracking file's own rows give by hand.
. "$(dirname "$0")/_lib.sh"
use_hooks # GT_SYSFS_ROOT
SYS=$TMP/sys
PC=$SYS/class/powercap
reset() {
    rapl_zone intel-rapl:0 package-0 1000000000 999000000
    rapl_zone intel-rapl:0:0 core 65532610987 7000000
    rapl_zone intel-rapl:0:1 dram 65532610987 1000000
    rapl_zone intel-rapl:1 psys 262143328850 0
}
reset
# package-0 moves from 999 J through its wrap at 1000 J to 4 J (+5 J), the
# DRAM counter by +2.5 J; core and psys stand still.
# Between samples of the tracking file (\$1), however slowly a loaded
# machine samples: four before and four after, so that each chart has a
# line of points on both sides of the rewrite (a row read during it has
# an empty cell).
samples_waiter
cat >advance.sh <<EOF
sh "$TMP/wait_samples.sh" "\$1" 4
printf '4000000\n' >"$PC/intel-rapl:0/energy_uj"
printf '3500000\n' >"$PC/intel-rapl:0:1/energy_uj"
sh "$TMP/wait_samples.sh" "\$1" 4
EOF

GT_SYSFS_ROOT=$SYS "$GT_BIN" -f json --st=0.05 --ru=bytes --tf=t.csv -- sh advance.sh t.csv >out.txt 2>err.txt ||
    fail "gpu-tracker: $(cat err.txt)"
json_report out.txt >r.json
# The columns as the metric table lays them out, then a power column per
# RAPL domain kind present.
[ "$(sed -n 3p t.csv)" = "$(columns --energy),package_power_watts,core_power_watts,dram_power_watts,psys_power_watts" ] ||
    fail "header: $(sed -n 3p t.csv)"
sed -n 3p t.csv | grep -q ',timestamp,.*,cpu_energy_joules,dram_energy_joules,gpu_energy_joules,package_power_watts,core_power_watts,dram_power_watts,psys_power_watts$' ||
    fail "header: $(sed -n 3p t.csv)"
# Places: package and dram joules (pj, dj), then the power columns after
# the energy columns: package, core, dram and psys watts (pw, cw, dw, sw).
read -r pj dj <<<"$(columns --energy cpu_energy_joules dram_energy_joules | tr '\n' ' ')"
n=$(ncolumns --energy)
cols="-v pj=$pj -v dj=$dj -v pw=$((n + 1)) -v cw=$((n + 2)) -v dw=$((n + 3)) -v sw=$((n + 4)) -v nf=$((n + 4))"
sed -n 4p t.csv | awk -F, $cols 'NF != nf || $pw != "" || $cw != "" || $dw != "" || $sw != "" { exit 1 }' ||
    fail "first row: power cells must be empty: $(sed -n 4p t.csv)"
awk -F, $cols 'NR > 4 {
    if (NF != nf) { print "row " NR ": " NF " cells"; bad = 1 }
    dp = $pj - p; dd = $dj - d
    if ($cw != "0.0" || $sw != "0.0") { print "row " NR ": still counters: " $cw ", " $sw; bad = 1 }
    # A counter read while the fixture rewrites it (truncated, then written)
    # is not read: an empty cell, never a number made up.  Its energy counts
    # in the next interval, which runs from its last reading.
    if ($pw == "" || $dw == "") unread++
    else {
    if (dp == 0 && $pw != "0.0") { print "row " NR ": package still, power " $pw; bad = 1 }
    if (dd == 0 && $dw != "0.0") { print "row " NR ": dram still, power " $dw; bad = 1 }
    if (dp > 0 && !($pw > 0)) { print "row " NR ": package +" dp " J, power " $pw; bad = 1 }
    if (dd > 0 && !($dw > 0)) { print "row " NR ": dram +" dd " J, power " $dw; bad = 1 }
    }
    if (dp < 0 || dd < 0) { print "row " NR ": energy went back"; bad = 1 }
    # Both moved in this interval, both read at its start: the same interval
    # length behind both.
    if (dp > 0 && dd > 0 && $pw != "" && $dw != "" && prev_ok) {
        both++
        x = $pw * dd; y = $dw * dp
        if (x - y > 1e-9 * x || y - x > 1e-9 * x) { print "row " NR ": " dp " J at " $pw " W but " dd " J at " $dw " W"; bad = 1 }
    }
    if (dp > 0 && $pw > 0) moved++
}
NR >= 4 { p = $pj; d = $dj; prev_ok = NR == 4 || ($pw != "" && $dw != "") }
END {
    if (p != 5 || d != 2.5) { print "totals " p ", " d; bad = 1 }
    if (moved < 1) { print "no row with package power"; bad = 1 }
    if (unread > 2) { print unread " rows with a counter not read, for 2 rewrites"; bad = 1 }
    exit bad
}' t.csv >check.txt || fail "power columns: $(cat check.txt)"

# DRAM by memory share, by hand from the file: each interval's DRAM joules
# times combined_ram / system_ram of the row that closes it (bytes).
want=$(awk -F, -v dj=$dj 'NR > 4 { s += ($dj - d) * ($3 / $4) } NR >= 4 { d = $dj } END { printf "%.17g", s }' t.csv)
got=$(jget r.json '.energy.cpu.domains["package-0:dram"].attributed_energy_memory_share_estimate')
awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 1e-12 * b) }' ||
    fail "DRAM by memory share: $got, by hand $want"
jget r.json '.energy.cpu.dram_attribution_method' | grep -q '^memory_share: ' || fail "DRAM method: $(jq -c .energy.cpu r.json)"
[ "$(jq '.energy.cpu.domains["package-0"] | has("attributed_energy_memory_share_estimate")' r.json)" = false ] ||
    fail "memory share on a package domain"
jq -e '.energy.cpu.domains["package-0:dram"].attributed_energy_estimate >= 0' r.json >/dev/null ||
    fail "CPU-time share of DRAM no longer shown"

# The text report names both, and the SQLite file has the same columns.
reset
GT_SYSFS_ROOT=$SYS "$GT_BIN" --st=0.05 --tf=t.sqlite -- sh advance.sh t.sqlite >out.txt 2>/dev/null
grep -q '^      DRAM attribution method: memory_share: ' out.txt || fail "text method: $(sed -n '/^Energy:/,$p' out.txt)"
grep -q '^            Attributed energy by memory share (estimate): ' out.txt ||
    fail "text figure: $(sed -n '/^Energy:/,$p' out.txt)"
[ "$(sqlite3 t.sqlite 'select package_power_watts is null from data order by rowid limit 1')" = 1 ] || fail "sqlite: first row's power"
[ "$(sqlite3 t.sqlite 'select count(*) from data where psys_power_watts != 0.0')" = 0 ] || fail "sqlite: psys power"
[ "$(sqlite3 t.sqlite 'select count(*) from data where package_power_watts > 0')" -ge 1 ] || fail "sqlite: package power"

# The plot draws one power chart per column: each series a line of points,
# the still domains at a maximum of 0 W.
"$GT_BIN" plot --tf=t.csv -o p.html
"$GT_BIN" plot --tf=t.sqlite -o p.svg
for f in p.html p.svg; do
    for dom in package core dram psys; do
        grep -q "<g class=\"chart\" data-chart=\"Power: $dom\">" $f || fail "$f: no $dom power chart"
        grep -q "<path class=\"series\" data-series=\"$dom\" [^>]* d=\"M[0-9.]* [0-9.]*L" $f || fail "$f: no $dom power line"
    done
    grep -q '>psys (max 0 W)<' $f || fail "$f: psys legend: $(grep -o '>psys (max[^<]*<' $f)"
    grep -q '>package (max [1-9][0-9.]* W)<' $f || fail "$f: package legend: $(grep -o '>package (max[^<]*<' $f)"
    [ "$(grep -c 'data-chart="Power: ' $f)" = 4 ] || fail "$f: power charts: $(grep -o 'data-chart="Power: [^"]*' $f)"
done
# Without power columns (the Python package's files), no power chart.
"$GT_BIN" plot --tf="$GT_REF/sub-tracking/tracking.csv" -o ref.html
! grep -q 'data-chart="Power: ' ref.html || fail "power chart without power columns"

# Without RAPL no power columns either: the Python package's layout and gpu-tracker's own.
GT_SYSFS_ROOT=$TMP/none "$GT_BIN" --st=0.05 --tf=n.csv --disable-logs -- true >/dev/null
[ "$(sed -n 3p n.csv)" = "$(columns)" ] || fail "no RAPL: $(sed -n 3p n.csv)"
echo "ok"
