# SPDX-License-Identifier: MIT
# GPU figures of --per-process (each process's memory and SM percent on each
# GPU) and --per-gpu (each GPU's memory, utilization and power), through the
# fake NVML with the real PIDs of a three-level job (_gpu.sh); a figure the
# library does not give is an empty cell / NULL, never 0.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/_lib.sh"
. "$HERE/_gpu.sh"
# GPU 1 gives no power and no per-process utilization.
cat >nvml.json <<JSON
{"devices": [
 {"uuid": "GPU-11111111-aaaa", "total": 17179869184,
  "samples": [{"used": 5000000000, "util": 30, "power_mw": 50000, "energy_mj": 7000,
    "compute": [{"pid_file": "main.pid", "mem": 300000000, "sm": 20},
                {"pid_file": "grand.pid", "mem": 110000000},
                {"pid": $$, "mem": 4000000000}]}]},
 {"uuid": "GPU-22222222-bbbb", "total": 8589934592,
  "errors": {"nvmlDeviceGetPowerUsage": 3, "nvmlDeviceGetProcessUtilization": 3},
  "samples": [{"used": 2000000000, "util": 50, "energy_mj": 9000,
    "compute": [{"pid_file": "child.pid", "mem": 700000000}]}]}
]}
JSON

# last_row CSV PID: the last row of process PID.
last_row() { awk -F, -v p="$2" 'NR > 1 && $2 == p { r = $0 } END { print r }' "$1"; }
# cols ROW: the GPU columns of a processes row.
cols() { echo "$1" | cut -d, -f13-; }

for ext in csv sqlite; do
    rm -f g.*
    track --gru=megabytes --per-process --per-gpu --tf=g.$ext
    grep -q 'nvmlDeviceGetPowerUsage' err.txt || fail "no warning of the missing power"
    if [ $ext = csv ]; then
        cp g.processes.csv p.csv
        cp g.gpus.csv d.csv
    else
        sqlite3 -header -csv g.sqlite 'SELECT * FROM processes' | tr -d '\r' >p.csv
        sqlite3 -header -csv g.sqlite 'SELECT * FROM gpus' | tr -d '\r' >d.csv
        [ "$(sqlite3 g.sqlite "SELECT DISTINCT typeof(power_watts) FROM gpus WHERE gpu_index = 1")" = null ] ||
            fail "$ext: power not given is not NULL"
        [ "$(sqlite3 g.sqlite "SELECT DISTINCT typeof(gpu1_sm_percent) FROM processes")" = null ] ||
            fail "$ext: SM percent not given is not NULL"
    fi
    [ "$(head -n 1 p.csv | cut -d, -f13-)" = gpu0_ram,gpu0_sm_percent,gpu1_ram,gpu1_sm_percent ] ||
        fail "$ext: processes header $(head -n 1 p.csv)"
    # Memory in --gru units; a listed device without the process: 0.0; the
    # SM percent of an idle process: 0.0; of GPU 1: none.
    [ "$(cols "$(last_row p.csv "$(cat main.pid)")")" = "300.0,20.0,0.0," ] ||
        fail "$ext: main: $(last_row p.csv "$(cat main.pid)")"
    [ "$(cols "$(last_row p.csv "$(cat child.pid)")")" = "0.0,0.0,700.0," ] ||
        fail "$ext: child: $(last_row p.csv "$(cat child.pid)")"
    [ "$(cols "$(last_row p.csv "$(cat grand.pid)")")" = "110.0,0.0,0.0," ] ||
        fail "$ext: grandchild: $(last_row p.csv "$(cat grand.pid)")"
    awk -F, -v me=$$ 'NR > 1 && $2 == me { exit 1 }' p.csv || fail "$ext: an untracked process has rows"
    [ "$(head -n 1 d.csv)" = timestamp,gpu_index,uuid,used_gpu_ram,utilization_percent,power_watts,total_gpu_ram ] ||
        fail "$ext: gpus header $(head -n 1 d.csv)"
    # total_gpu_ram: each GPU's capacity in --gru units, in every row.
    [ "$(awk -F, 'NR > 1 && $2 == 0 { print $2 "," $3 "," $4 "," $5 "," $6 "," $7 }' d.csv | sort -u)" = "0,GPU-11111111-aaaa,5000.0,30.0,50.0,17179.869184" ] ||
        fail "$ext: GPU 0 rows: $(grep aaaa d.csv | sort -u | head -3)"
    [ "$(awk -F, 'NR > 1 && $2 == 1 { print $2 "," $3 "," $4 "," $5 "," $6 "," $7 }' d.csv | sort -u)" = "1,GPU-22222222-bbbb,2000.0,50.0,,8589.934592" ] ||
        fail "$ext: GPU 1 rows: $(grep bbbb d.csv | sort -u | head -3)"
    # One row per GPU and sample, the samples of the main table.
    n_main=$(if [ $ext = csv ]; then awk 'END { print NR - 3 }' g.csv; else sqlite3 g.sqlite 'SELECT count(*) FROM data'; fi)
    [ "$(awk 'END { print NR - 1 }' d.csv)" = $((2 * n_main)) ] || fail "$ext: $(wc -l <d.csv) GPU rows for $n_main samples"
done

# --guuids: columns and rows for the selected GPU only.
rm -f g.*
track --gru=megabytes --per-process --per-gpu --guuids=GPU-22222222-bbbb --tf=g.csv
[ "$(head -n 1 g.processes.csv | cut -d, -f13-)" = gpu1_ram,gpu1_sm_percent ] || fail "--guuids: $(head -n 1 g.processes.csv)"
awk -F, 'NR > 1 && $2 != 1 { exit 1 }' g.gpus.csv || fail "--guuids: rows of GPU 0"
[ "$(cols "$(last_row g.processes.csv "$(cat child.pid)")")" = "700.0," ] ||
    fail "--guuids: child: $(last_row g.processes.csv "$(cat child.pid)")"
# --per-gpu needs a tracking file.
set +e
"$GT_BIN" --per-gpu -- true >o.txt 2>e.txt
rc=$?
set -e
[ $rc = 2 ] && grep -q -- '--per-gpu needs a tracking file' e.txt || fail "--per-gpu without --tf: exit $rc $(cat e.txt)"
