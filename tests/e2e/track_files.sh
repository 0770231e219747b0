# SPDX-License-Identifier: MIT
# Tracking files: layouts, never overwritten without --overwrite, nothing
# run when the file exists.
. "$(dirname "$0")/_lib.sh"
use_hooks # GT_SYSFS_ROOT
# Energy columns follow the Python package's and gpu-tracker's own (the
# metric table's layout, columns in _lib.sh) when energy is measured (a
# fixture RAPL tree here), and only then.
GT_SYSFS_ROOT=$TMP/no-sys GT_NVML_LIBRARY=$TMP/none.so GT_ROCM_SMI_LIBRARY=$TMP/none.so \
    "$GT_BIN" --st=0.05 --tf=plain.csv --disable-logs -- true >/dev/null
[ "$(sed -n 3p plain.csv)" = "$(columns)" ] || fail "no energy: $(sed -n 3p plain.csv)"
sed -n 3p plain.csv | grep -q ",cpu_combined_hardware_utilization_percent,timestamp," || fail "package's columns: $(sed -n 3p plain.csv)"
with_rapl
# (The command holds until 12 more rows are in the file: samples over at
# least 0.55 s, however slowly a loaded machine samples.)
"$GT_BIN" --st=0.05 --ru=megabytes --tf=t.csv -- "$W/touch_mem" 20 rows=12@t.csv >/dev/null
sed -n 1p t.csv | grep -qx "ram_unit,gpu_ram_unit,time_unit,ram_system_capacity,gpu_ram_system_capacity,system_core_count,n_expected_cores,system_gpu_count,n_expected_gpus" || fail "static header"
sed -n 2p t.csv | grep -q "^megabytes,gigabytes,hours," || fail "static row"
sed -n 3p t.csv | grep -q "^main_ram,descendants_ram,combined_ram,system_ram,.*,timestamp," || fail "timepoint header: $(sed -n 3p t.csv)"
[ "$(sed -n 3p t.csv)" = "$(columns --energy),package_power_watts" ] || fail "timepoint header: $(sed -n 3p t.csv)"
sed -n 3p t.csv | grep -q ",cpu_energy_joules,dram_energy_joules,gpu_energy_joules,package_power_watts$" || fail "energy columns: $(sed -n 3p t.csv)"
# the first sample closes no CPU interval: empty CPU cells, not zeros
sed -n 4p t.csv | awk -F, '$14 != "" || $16 != "" { exit 1 }' || fail "first sample CPU cells should be empty"
# Below 0.25 s between samples, a CPU percent needs 0.25 s of history (the
# kernel's CPU clocks advance at its tick): samples before have none, every
# later one has them (timestamps are the 22nd column).
awk -F, 'NR == 4 { t0 = $22 } NR > 4 && ($22 - t0 >= 0.3 && $16 == "" || $22 - t0 < 0.2 && $16 != "") { exit 1 }
         END { if (NR < 12) exit 1 }' t.csv || fail "CPU cells should be set from 0.25 s on"

echo keep >t.csv
rc=0; "$GT_BIN" --tf=t.csv -- touch ran.marker 2>err.txt >/dev/null || rc=$?
[ $rc = 2 ] || fail "existing tracking file: exit $rc"
[ ! -e ran.marker ] || fail "the command ran although the tracking file exists"
grep -q "t.csv" err.txt && grep -q -- "--overwrite" err.txt || fail "message: $(cat err.txt)"
[ "$(cat t.csv)" = keep ] || fail "existing file was modified"

"$GT_BIN" --st=0.05 --tf=t.csv --overwrite -- touch ran.marker >/dev/null
[ -e ran.marker ] || fail "--overwrite did not run the command"

# The command holds until the file has 5 samples (SQLite: counted by the
# test, which then releases it).
sqlite_rows() { [ -e "$1" ] && [ "$(sqlite3 "$1" "select count(*) from data")" -ge "$2" ]; }
"$GT_BIN" --st=0.02 --tf=t.sqlite -- "$W/touch_mem" 5 file=t.release >/dev/null &
wait_for sqlite_rows t.sqlite 5
touch t.release
wait $!
n=$(sqlite3 t.sqlite "select count(*) from data")
[ "$n" -ge 5 ] || fail "sqlite rows: $n"
[ "$(sqlite3 t.sqlite "select ram_unit from static_data")" = gigabytes ] || fail "sqlite static data"

rc=0; "$GT_BIN" --tf=t.txt -- true 2>err.txt >/dev/null || rc=$?
[ $rc = 2 ] || fail "bad extension: exit $rc"

# Samples reach the disk as they are taken: a tracker killed with SIGKILL
# leaves every row so far readable and none torn.  It is killed once 20 rows
# are readable (a fixed sleep was too short on a loaded machine).
rows_in() {
    case $1 in
    *.csv) echo $(($(wc -l <"$1") - 3)) ;;
    *) sqlite3 "$1" "select count(*) from data" 2>/dev/null || echo 0 ;;
    esac
}
rows_at_least() { [ -e "$1" ] && [ "$(rows_in "$1")" -ge "$2" ]; }
for ext in csv sqlite; do
    "$GT_BIN" --st=0.01 --tf=k.$ext --overwrite --disable-logs -- "$W/touch_mem" 5 file=never >/dev/null &
    pid=$!
    wait_for rows_at_least k.$ext 20
    child=$(cat /proc/$pid/task/$pid/children)
    kill -9 $pid
    wait $pid 2>/dev/null || true
    kill $child
    if [ $ext = csv ]; then
        rows=$(($(wc -l <k.csv) - 3))
        [ "$(tail -c 1 k.csv | od -An -c | tr -d ' ')" = '\n' ] || fail "killed tracker: last CSV row torn"
        awk -F, -v n=$(($(ncolumns --energy) + 1)) 'NR > 3 && NF != n { exit 1 }' k.csv ||
            fail "killed tracker: a CSV row is torn"
    else
        rows=$(sqlite3 k.sqlite "select count(*) from data")
    fi
    [ "$rows" -ge 20 ] || fail "killed tracker: $rows $ext rows readable"
done

# Intervals down to 1 ms work.
# (The command holds until 21 more rows are in the file: how many samples
# a loaded machine allows in a given time is not this test's question.)
"$GT_BIN" --st=0.001 --tf=ms.csv --disable-logs -- "$W/touch_mem" 5 rows=21@ms.csv >/dev/null
rows=$(($(wc -l <ms.csv) - 3))
[ "$rows" -ge 20 ] || fail "--st=0.001: $rows samples"
