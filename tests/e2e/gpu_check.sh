# SPDX-License-Identifier: MIT
# gt-test: no-san: runs bench/gpu-check's shell parts and the GPU workload's error paths, which the sanitizer build does not change
# The parts of bench/gpu-check that need no GPU: the workload's error paths,
# the parsers of nvidia-smi's documented output formats and of gpu-tracker's
# own report and tracking file, its gpu-tracker options, report paths and
# columns against this build, the bundle it builds for a GPU machine (its
# nvml_calls and Python programs over the fake NVML), and its refusal where
# nvidia-smi is missing.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/_lib.sh"
ROOT=$(cd "$HERE/../.." && pwd)
. "$ROOT/bench/gpu_check_lib.sh"

# The workload: a usage error exits 2; no driver exits 3 with the loader's
# reason (only where this machine has no driver, as CI has none).
set +e
"$W/gpu_load" 10 >out.txt 2>err.txt; rc=$?
set -e
[ "$rc" = 2 ] && grep -q '^usage: gpu_load MiB SECONDS' err.txt || fail "gpu_load with one argument: exit $rc, $(cat err.txt)"
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1 '; then
    set +e
    "$W/gpu_load" 16 0.1 >out.txt 2>err.txt; rc=$?
    set -e
    [ "$rc" = 3 ] || fail "gpu_load without a driver: exit $rc, expected 3"
    grep -q '^gpu_load: no CUDA driver: libcuda\.so\.1' err.txt || fail "gpu_load without a driver says: $(cat err.txt)"
    [ ! -s out.txt ] || fail "gpu_load without a driver printed figures: $(cat out.txt)"
fi

# nvidia-smi --query-compute-apps, polled: each process's largest figure,
# in order of first appearance; the header of a run without nounits and a
# "[N/A]" figure are no figures.
cat >apps.txt <<'TXT'
4242, 1030
4250, 2054
pid, used_gpu_memory [MiB]
4242, 1538
4250, [N/A]
4242, 1024
TXT
[ "$(smi_apps_max apps.txt | tr '\n' ' ')" = "4242 1538 4250 2054 " ] || fail "smi_apps_max: $(smi_apps_max apps.txt)"

# nvidia-smi --query-gpu=timestamp,power.draw,utilization.gpu,memory.used:
# 100 W then 200 W a second later is 150 J by the trapezoid rule; a poll
# outside the window and an [N/A] power are left out of the energy.
cat >gpu.txt <<'TXT'
2026/11/26 01:02:02.000, 900.00, 0, 9999
2026/11/26 01:02:03.000, 100.00, 50, 1000
2026/11/26 01:02:03.500, [N/A], 60, 1000
2026/11/26 01:02:04.000, 200.00, 100, 3000
TXT
from=$(date -d '2026-11-26 01:02:03' +%s) to=$(date -d '2026-11-26 01:02:04' +%s)
got=$(smi_gpu_stats gpu.txt "$from" "$to")
[ "$got" = "150.000 150.000 200.000 70.000 3000.0 3" ] || fail "smi_gpu_stats: '$got'"

# nvidia-smi pmon -s u: the columns found by name, "-" as no figure.
cat >pmon.txt <<'TXT'
# gpu         pid   type     sm    mem    enc    dec    jpg    ofa    command
# Idx           #    C/G      %      %      %      %      %      %    name
    0       4242     C     37      3      -      -      -      -    gpu_load
    0       4250     C      -      -      -      -      -      -    gpu_load
    0       4242     C     98      9      -      -      -      -    gpu_load
TXT
[ "$(smi_pmon_max pmon.txt | tr '\n' ' ')" = "4242 98 67.5 4250 0 0 " ] || fail "smi_pmon_max: $(smi_pmon_max pmon.txt)"

# The workload's key=value lines, by PID (a device name holds spaces).
cat >wl.txt <<'TXT'
gpu_load pid=11 device="NVIDIA H200" multiprocessors=132 driver_api=13000 allocated_mib=512.000 total_mib=143771.0 free_before_mib=143000.0 free_after_alloc_mib=142488.0
gpu_load pid=12 device="NVIDIA H200" multiprocessors=132 driver_api=13000 allocated_mib=1536.000 total_mib=143771.0 free_before_mib=142000.0 free_after_alloc_mib=140464.0
gpu_load pid=12 busy_s=6.001 kernel_s=5.990 launches=300 iters=65536 free_after_kernel_mib=140464.0
TXT
[ "$(workload_pids wl.txt | tr '\n' ' ')" = "11 12 " ] || fail "workload_pids: $(workload_pids wl.txt)"
[ "$(workload_value wl.txt 12 allocated_mib)" = 1536.000 ] || fail "workload_value allocated_mib"
[ "$(workload_value wl.txt 12 launches)" = 300 ] || fail "workload_value launches"
[ -z "$(workload_value wl.txt 13 allocated_mib)" ] || fail "workload_value of an unknown PID"

# gpu-tracker's own report and tracking file, from a run over the fake NVML:
# the text report's values by section path equal the JSON report's.
SECS=1 . "$HERE/_gpu.sh"
cat >nvml.json <<'JSON'
{"devices": [{"uuid": "GPU-a", "total": 8000000000, "samples": [
  {"used": 3000000000, "util": 40, "power_mw": 50000, "energy_mj": 1000,
   "compute": [{"pid_file": "main.pid", "mem": 1000000000}, {"pid_file": "grand.pid", "mem": 500000000}]}]}]}
JSON
"$GT_BIN" --st=0.1 --gru=megabytes --tf=t.csv -- sh main.sh >text.txt 2>/dev/null || fail "tracking over the fake NVML"
[ "$(report_value text.txt 'Max GPU RAM/Main')" = 1000.0 ] || fail "report_value main: $(report_value text.txt 'Max GPU RAM/Main')"
[ "$(report_value text.txt 'Max GPU RAM/Descendants')" = 500.0 ] || fail "report_value descendants"
[ "$(report_value text.txt 'GPU utilization/GPU percentages/Mean sum percent')" = 40.0 ] || fail "report_value utilization"
[ -z "$(report_value text.txt 'Max GPU RAM/Nothing')" ] || fail "report_value of a missing line"
[ "$(csv_column_stat t.csv main_gpu_ram max)" = 1000 ] || fail "csv_column_stat max: $(csv_column_stat t.csv main_gpu_ram max)"
[ "$(csv_column_stat t.csv gpu_sum_utilization_percent mean)" = 40 ] || fail "csv_column_stat mean"
read -r rows secs first last <<<"$(csv_rows t.csv)"
[ "$rows" = "$(($(wc -l <t.csv) - 3))" ] || fail "csv_rows: $rows rows"
within "$secs" 0.1 1000 "csv_rows: seconds from the first sample to the last"
awk -v s="$secs" -v a="$first" -v b="$last" 'BEGIN { d = b - a - s; exit !(a > 1e9 && d < 1e-5 && d > -1e-5) }' ||
    fail "csv_rows: first $first, last $last, seconds $secs"
# The per-process table: one process's column, by PID.
printf 'timestamp,pid,ppid,command,gpu0_sm_percent\n1,7,1,a,10\n1,8,7,b,90\n2,7,1,a,30\n2,8,7,b,\n' >p.csv
[ "$(proc_csv_stat p.csv 7 gpu0_sm_percent mean)" = 20 ] || fail "proc_csv_stat mean"
[ "$(proc_csv_stat p.csv 8 gpu0_sm_percent max)" = 90 ] || fail "proc_csv_stat max"
[ -z "$(proc_csv_stat p.csv 9 gpu0_sm_percent max)" ] || fail "proc_csv_stat of an unknown PID"

# bench/gpu-check against this build: each gpu-tracker command line it runs
# (its options, read from the script itself) is accepted here, over the fake
# NVML with the job above as the command, and each report path, tracking-file
# column and per-process column it reads has a value in what they wrote.  A
# name changed in the options, the report or the files would otherwise show
# only on a GPU machine, as a "-" where a figure belongs.
cat >nvml.json <<'JSON'
{"devices": [{"uuid": "GPU-a", "total": 8000000000, "samples": [
  {"used": 3000000000, "util": 40, "power_mw": 50000, "energy_mj": 1000,
   "compute": [{"pid_file": "main.pid", "mem": 1000000000, "sm": 30}, {"pid_file": "grand.pid", "mem": 500000000, "sm": 20}]},
  {"used": 3000000000, "util": 60, "power_mw": 70000, "energy_mj": 9000,
   "compute": [{"pid_file": "main.pid", "mem": 1000000000, "sm": 30}, {"pid_file": "grand.pid", "mem": 500000000, "sm": 20}]}]}]}
JSON
GC="$ROOT/bench/gpu-check"
O=$TMP/gc
mkdir -p "$O"
# Its command lines with their continuations joined; the options are the
# words from "$GT" to the " -- " before the command (spaces squeezed).
sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$GC" | tr -s ' ' | sed -n 's/.*"\$GT" \(--[^ ]\{1,\}\( --[^ ]\{1,\}\)*\) -- .*/\1/p' >gc_runs.txt
[ "$(wc -l <gc_runs.txt)" -ge 4 ] || fail "bench/gpu-check: its gpu-tracker command lines not found: $(cat gc_runs.txt)"
while read -r opts; do
    eval "set -- $opts"
    tf=
    for a in "$@"; do case $a in --tf=*) tf=${a#--tf=} ;; esac; done
    [ -n "$tf" ] || fail "bench/gpu-check runs gpu-tracker without --tf: $opts"
    rm -f main.pid child.pid grand.pid nvml.log
    "$GT_BIN" "$@" -- sh main.sh >"${tf%.csv}.out" 2>gc.err || fail "gpu-tracker $opts (bench/gpu-check): exit $?: $(cat gc.err)"
    cp grand.pid "${tf%.csv}.grand"
done <gc_runs.txt
# report_value "$O/NAME.out" "PATH": in NAME.out, or for the Python
# package's report (py.out, the library's text too), in attr.out.
grep -o 'report_value "$O/[a-z0-9]*\.out" "[^"]*"' "$GC" | sed 's/^report_value "$O\/\([a-z0-9]*\)\.out" "\(.*\)"$/\1 \2/' >gc_paths.txt
[ "$(wc -l <gc_paths.txt)" -ge 10 ] || fail "bench/gpu-check: its report paths not found: $(cat gc_paths.txt)"
while read -r name path; do
    f=$O/$name.out
    [ -e "$f" ] || f=$O/attr.out
    [ -n "$(report_value "$f" "$path")" ] || fail "bench/gpu-check reads '$path' of $name.out, which has none: $(cat "$f")"
done <gc_paths.txt
# csv_column_stat "$O/NAME.csv" COLUMN and proc_csv_stat "$O/NAME" "$PID" COLUMN.
grep -o 'csv_column_stat "$O/[a-z0-9]*\.csv" [a-z0-9_]*' "$GC" | sed 's/^csv_column_stat "$O\/\([^"]*\)" /\1 /' >gc_cols.txt
grep -o 'proc_csv_stat "$O/[a-z0-9.]*\.csv" "$[a-z]*" [a-z0-9_]*' "$GC" | sed 's/^proc_csv_stat "$O\/\([^"]*\)" "$[a-z]*" /\1 /' >gc_pcols.txt
[ -s gc_cols.txt ] && [ "$(wc -l <gc_pcols.txt)" -ge 2 ] ||
    fail "bench/gpu-check: its columns not found: $(cat gc_cols.txt gc_pcols.txt)"
while read -r file col; do
    [ -n "$(csv_column_stat "$O/$file" "$col" max)" ] || fail "bench/gpu-check reads column $col of $file, which has none: $(head -3 "$O/$file")"
done <gc_cols.txt
while read -r file col; do
    [ -e "$O/$file" ] || fail "bench/gpu-check reads $file, which was not written: $(ls "$O")"
    pid=$(cat "$O/${file%%.*}.grand")
    [ -n "$(proc_csv_stat "$O/$file" "$pid" "$col" max)" ] ||
        fail "bench/gpu-check reads column $col of $file, which has none for the grandchild $pid: $(head -3 "$O/$file")"
done <gc_pcols.txt

# The bundle for a GPU machine (the gcc build's objects): each binary finds
# libsqlite3 and libcjson in the bundle, the Python package its library.
if [ -z "${GT_TEST_SAN:-}" ] && [ "$GT_BUILD" -ef "$ROOT/build" ]; then
    "$ROOT/bench/gpu-check" build "$TMP/bundle" >build.txt 2>&1 || fail "gpu-check build: $(cat build.txt)"
    for f in gpu-tracker gpu_load rusage nvml_calls libsqlite3.so.0 libcjson.so.1 python/gpu_tracker/libgputracker.so; do
        [ -e "$TMP/bundle/$f" ] || fail "the bundle lacks $f"
    done
    ldd "$TMP/bundle/gpu-tracker" | grep -q "libcjson.so.1 => $TMP/bundle/libcjson.so.1" ||
        fail "the bundle's gpu-tracker does not load its own libcjson: $(ldd "$TMP/bundle/gpu-tracker")"
    "$TMP/bundle/gpu-tracker" --version >/dev/null || fail "the bundle's gpu-tracker does not run"
    (cd / && PYTHONPATH="$TMP/bundle/python" GPU_TRACKER_LIB= python3 -c \
        'import gpu_tracker._lib as l, sys; sys.exit(not l._load()[1].startswith(sys.argv[1]))' "$TMP/bundle") ||
        fail "the bundle's Python package does not load the bundle's library"

    # The bundle's nvml_calls over the fake NVML, loaded by the driver's
    # soname as on the GPU machine: each function a sample calls is timed
    # (none fails nor is missing), and the processes' utilization samples
    # are listed.
    mkdir -p fakelib
    ln -sf "$GT_BUILD/fakes/nvml.so" fakelib/libnvidia-ml.so.1
    echo $$ >main.pid
    echo $PPID >grand.pid
    LD_LIBRARY_PATH=$PWD/fakelib "$TMP/bundle/nvml_calls" 3 >calls.txt 2>&1 || fail "nvml_calls: exit $?: $(cat calls.txt)"
    for f in nvmlDeviceGetMemoryInfo nvmlDeviceGetMemoryInfo_v2 nvmlDeviceGetUtilizationRates nvmlDeviceGetPowerUsage \
        nvmlDeviceGetTotalEnergyConsumption nvmlDeviceGetComputeRunningProcesses_v3 \
        nvmlDeviceGetGraphicsRunningProcesses_v3 nvmlDeviceGetProcessUtilization; do
        grep -Eq "^$f +[0-9.]+ +[0-9.]+ 3$" calls.txt || fail "nvml_calls: no timing of $f: $(cat calls.txt)"
    done
    grep -q "^sample pid $$ at [-0-9.]* s: sm 30 mem 0$" calls.txt || fail "nvml_calls: no utilization sample: $(cat calls.txt)"

    # Its Python programs (the Tracker, the notebook cell), read from the
    # script, with the bundle's package over the fake NVML and the job above
    # in place of gpu_load (which takes the same arguments).
    awk '/<<.PY.$/ { n++; on = 1; next } /^PY$/ { on = 0 } on { print >("gc_py" n ".py") }' "$GC"
    [ -s gc_py1.py ] && [ -s gc_py2.py ] || fail "bench/gpu-check: its Python programs not found"
    printf '#!/bin/sh\nexec sh %s/main.sh\n' "$TMP" >wl
    chmod +x wl
    rm -f main.pid child.pid grand.pid nvml.log
    PYTHONPATH="$TMP/bundle/python" python3 - "$TMP/wl" <gc_py1.py >py.out 2>py.err ||
        fail "bench/gpu-check's Tracker program: exit $?: $(cat py.err)"
    [ "$(report_value py.out "Max GPU RAM/Descendants")" = 1500.0 ] ||
        fail "bench/gpu-check's Tracker program: descendants' GPU RAM: $(cat py.out)"
    if python3 -c 'import IPython' 2>/dev/null; then
        rm -f main.pid child.pid grand.pid nvml.log
        PYTHONPATH="$TMP/bundle/python" python3 - "$TMP/wl" <gc_py2.py >cell.out 2>&1 ||
            fail "bench/gpu-check's notebook cell: exit $?: $(cat cell.out)"
        grep -q '^gpu-tracker: .*| GPU RAM: ' cell.out || fail "bench/gpu-check's notebook cell: $(cat cell.out)"
    else
        skip_part "the notebook cell" "no IPython (python3-ipykernel)"
    fi

    # Without nvidia-smi the check says so and fails.
    mkdir -p nobin
    set +e
    PATH="$PWD/nobin:/usr/bin:/bin" "$ROOT/bench/gpu-check" run "$TMP/bundle" "$TMP/gcout" >run.txt 2>&1; rc=$?
    set -e
    if ! command -v nvidia-smi >/dev/null; then
        [ "$rc" = 1 ] && grep -q 'no nvidia-smi here' run.txt || fail "gpu-check run without nvidia-smi: exit $rc, $(cat run.txt)"
    fi
else
    skip_part "the bundle" "bench/gpu-check build links the gcc build in $ROOT/build, not $GT_BUILD"
fi
echo ok
