# SPDX-License-Identifier: MIT
# Energy from a fixture RAPL tree (GT_SYSFS_ROOT): counters that the tracked
# command advances by known amounts, one of them through its wrap, give
# exactly those joules in the report and the tracking file; counters only
# root may read are reported unavailable with the fix, and the fix works.
. "$(dirname "$0")/_lib.sh"
use_hooks # GT_SYSFS_ROOT
SYS=$TMP/sys
PC=$SYS/class/powercap
reset() {
    rapl_zone intel-rapl:0 package-0 1000000000 999000000
    rapl_zone intel-rapl:0:0 dram 65532610987 1000000
}
reset
# The command moves package-0 from 999 J through its wrap at 1000 J to 4 J
# (+5 J) and the DRAM counter by +2.5 J, in place as the kernel does,
# between samples of its tracking file (\$1): the counters are read before
# and after, however slowly a loaded machine samples.
samples_waiter
cat >advance.sh <<EOF
sh "$TMP/wait_samples.sh" "\$1" 2
printf '4000000\n' >"$PC/intel-rapl:0/energy_uj"
printf '3500000\n' >"$PC/intel-rapl:0:0/energy_uj"
sleep 0.3
sh "$TMP/wait_samples.sh" "\$1" 2
EOF

GT_SYSFS_ROOT=$SYS "$GT_BIN" -f json --st=0.05 --tf=t.csv -- sh advance.sh t.csv >out.txt
json_report out.txt >r.json
[ "$(jget r.json '.energy.unit')" = joules ] || fail "unit"
[ "$(jget r.json '.energy.cpu.unavailable')" = null ] || fail "unavailable: $(jget r.json '.energy.cpu.unavailable')"
jq -e '.energy.cpu.domains["package-0"].energy == 5' r.json >/dev/null || fail "package energy: $(jq -c .energy r.json)"
jq -e '.energy.cpu.domains["package-0:dram"].energy == 2.5' r.json >/dev/null || fail "dram energy"
jget r.json '.energy.cpu.attribution_method' | grep -q '^cpu_time_share' || fail "method"
a=$(jget r.json '.energy.cpu.domains["package-0"].attributed_energy_estimate')
within "$a" 0 5 "attributed package energy"
# mean power: 5 J over more than the 0.3 s the command ran after moving the
# counters; max >= mean
mean=$(jget r.json '.energy.cpu.domains["package-0"].mean_power_watts')
max=$(jget r.json '.energy.cpu.domains["package-0"].max_power_watts')
within "$mean" 0.001 16.7 "mean power"
within "$max" "$mean" 1e9 "max power"

# Tracking file: joules since the first sample, at the end of each row.
# The columns as the metric table lays them out, then a power column per
# RAPL domain kind present.
[ "$(sed -n 3p t.csv)" = "$(columns --energy),package_power_watts,dram_power_watts" ] || fail "header: $(sed -n 3p t.csv)"
sed -n 3p t.csv | grep -q ',timestamp,.*,cpu_energy_joules,dram_energy_joules,gpu_energy_joules,package_power_watts,dram_power_watts$' ||
    fail "header: $(sed -n 3p t.csv)"
read -r cpu dram gpu <<<"$(columns --energy cpu_energy_joules dram_energy_joules gpu_energy_joules | tr '\n' ' ')"
energy_row() { awk -F, -v c=$cpu -v d=$dram -v g=$gpu -v want="$1" '{ exit !($c "," $d "," $g == want) }'; }
sed -n 4p t.csv | energy_row 0.0,0.0, || fail "first row: $(sed -n 4p t.csv)"
tail -n 1 t.csv | energy_row 5.0,2.5, || fail "last row: $(tail -n 1 t.csv)"

reset
GT_SYSFS_ROOT=$SYS "$GT_BIN" --eu=kilojoules --st=0.05 --tf=t.sqlite -- sh advance.sh t.sqlite >out.txt 2>/dev/null
[ "$(sqlite3 t.sqlite 'select cpu_energy_joules, dram_energy_joules, gpu_energy_joules is null from data order by rowid desc limit 1')" = "5.0|2.5|1" ] ||
    fail "sqlite energy columns: $(sqlite3 t.sqlite 'select * from data order by rowid desc limit 1')"
grep -q '^   Unit: kilojoules$' out.txt || fail "--eu text unit"
grep -q '^            Energy: 0.005$' out.txt || fail "--eu: $(sed -n '/^Energy:/,$p' out.txt)"

# No RAPL at all: said once on stderr, no number made up, and no Energy
# section with nothing in it (the report is then the Python package's).
GT_SYSFS_ROOT=$TMP/none "$GT_BIN" -f json --st=0.05 --tf=n.csv -- true >out.txt 2>err.txt
json_report out.txt >r.json
[ "$(jq 'has("energy")' r.json)" = false ] || fail "energy section without energy: $(jq -c .energy r.json)"
[ "$(grep -c 'CPU energy is not measured: no RAPL energy counters' err.txt)" = 1 ] || fail "no RAPL reason: $(cat err.txt)"
GT_SYSFS_ROOT=$TMP/none "$GT_BIN" --st=0.05 --disable-logs -- true >out.txt 2>err.txt
! grep -qi "energy" err.txt out.txt || fail "--disable-logs: $(cat err.txt out.txt)"
# Nor energy columns in the tracking file: the Python package's columns and gpu-tracker's own.
[ "$(sed -n 3p n.csv)" = "$(columns)" ] || fail "no RAPL: energy columns: $(sed -n 3p n.csv)"

# energy_uj readable by root only (Linux >= 5.10): as an unprivileged user.
unreadable_counters() { # gpu-tracker
    local gt=$1
    reset
    chmod 0400 "$PC"/intel-rapl:*/energy_uj
    [ "$(id -u)" = 0 ] || chmod 0 "$PC"/intel-rapl:*/energy_uj
    unpriv env GT_SYSFS_ROOT="$SYS" "$gt" --st=0.05 -- true >out.txt 2>/dev/null
    why=$(grep '^      Unavailable: ' out.txt) || fail "no reason: $(sed -n '/^Energy:/,$p' out.txt)"
    echo "$why" | grep -q "all of 2 RAPL domains cannot be read (package-0: Permission denied, package-0:dram: Permission denied)" || fail "reason: $why"
    echo "$why" | grep -qF "sudo chmod o+r $PC/intel-rapl:*/energy_uj" || fail "fix: $why"
    echo "$why" | grep -qF 'SUBSYSTEM=="powercap"' || fail "udev rule: $why"
    [ "$(grep -c 'Unavailable' out.txt)" = 1 ] || fail "reason stated more than once"
    grep -q '^            Energy: unavailable$' out.txt || fail "unreadable domain must read 'unavailable'"
    if [ "$(id -u)" = 0 ]; then
        chmod o+r "$PC"/intel-rapl:*/energy_uj # the fix the report names
    else
        chmod u+r "$PC"/intel-rapl:*/energy_uj
    fi
    unpriv env GT_SYSFS_ROOT="$SYS" "$gt" --st=0.05 -- true >out.txt 2>/dev/null
    ! grep -q 'Unavailable' out.txt || fail "after the fix: $(grep Unavailable out.txt)"
    grep -q '^            Energy: 0.0$' out.txt || fail "after the fix: $(sed -n '/^Energy:/,$p' out.txt)"
}
unpriv() {
    if [ "$(id -u)" = 0 ]; then
        setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
    else
        "$@"
    fi
}
chmod 755 "$TMP"
if [ "$(id -u)" != 0 ]; then
    unreadable_counters "$GT_BIN"
elif gt=$(nobody_path "$GT_BIN"); then
    unreadable_counters "$gt"
else
    skip_part "RAPL counters readable by root only" "it runs as user nobody, who cannot run this checkout's binaries"
fi

# --eu is checked like the other units; --tconfig takes energy_unit.
rc=0; "$GT_BIN" --eu=watts -- touch ran.marker >/dev/null 2>err.txt || rc=$?
[ $rc = 2 ] && [ ! -e ran.marker ] || fail "--eu=watts: exit $rc"
grep -q "'joules', 'kilojoules', 'watt-hours', 'kilowatt-hours'" err.txt || fail "--eu message: $(cat err.txt)"
echo '{"energy_unit": "watt-hours"}' >c.json
reset
GT_SYSFS_ROOT=$SYS "$GT_BIN" --tconfig=c.json -f json --st=0.05 --tf=c.csv -- sh advance.sh c.csv >out.txt 2>/dev/null
json_report out.txt >r.json
[ "$(jget r.json .energy.unit)" = watt-hours ] || fail "tconfig energy_unit"
jq -e '.energy.cpu.domains["package-0"].energy == 5 / 3600' r.json >/dev/null || fail "watt-hours: $(jq -c .energy.cpu.domains r.json)"
