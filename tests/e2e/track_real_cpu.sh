# SPDX-License-Identifier: MIT
# gt-test: serial: CPU figures against numpy's and xz's own CPU time; both cores busy
# gt-test: no-san: CPU figures against the workload's own; track_cpu runs the same sampler code under the sanitizers
# CPU figures of real multi-threaded programs from Debian packages: numpy
# matrix products on a 2-thread OpenBLAS, and xz -T2 compressing generated
# text.  Each workload reports its own CPU time (getrusage, self and reaped
# children) at its end; gpu-tracker's CPU seconds (percent x interval summed
# over the tracking file) must agree, and no max may exceed what 2 threads
# or the machine's cores can run.
. "$(dirname "$0")/_lib.sh"
PY=/usr/bin/python3 # Debian's, with python3-numpy (not a virtual environment's)
"$PY" -c 'import numpy' 2>/dev/null || fail "python3-numpy missing: run scripts/setup-deps.sh test"
command -v xz >/dev/null || fail "xz missing: run scripts/setup-deps.sh test"
seq 1 2500000 >data.txt
cat >numpy_matmul.py <<'PY'
import os, resource, sys
import numpy as np
a = np.random.default_rng(1).random((1000, 1000))
for _ in range(25):
    a = a @ a
    a /= np.abs(a).max()
r = resource.getrusage(resource.RUSAGE_SELF)
print("truth", r.ru_utime + r.ru_stime, flush=True)
os._exit(0)  # no teardown after the figure, whose CPU time it would miss
PY
cat >run_xz.py <<'PY'
import os, resource, subprocess, sys
subprocess.run(["xz", "-T2", "-3", "--block-size=4MiB", "-c", "data.txt"],
               stdout=subprocess.DEVNULL, check=True)
c = resource.getrusage(resource.RUSAGE_CHILDREN)
s = resource.getrusage(resource.RUSAGE_SELF)
print("truth", c.ru_utime + c.ru_stime + s.ru_utime + s.ru_stime, flush=True)
os._exit(0)
PY
check() { # name st
    local name=$1 st=$2 tag="$1 at --st=$2"
    sed -n '/^{/,$p' "out.txt" >r.json
    cores=$(jget r.json .cpu_utilization.system_core_count)
    max=$(jget r.json .cpu_utilization.combined.max_sum_percent)
    within "$max" 1 205 "$tag: max CPU percent (2 threads)"
    within "$max" 1 $((100 * cores + 5)) "$tag: max CPU percent (cores)"
    truth=$(awk '$1 == "truth" { print $2 }' out.txt)
    sum=$(awk -F, 'FNR == 3 { for (i = 1; i <= NF; i++) c[$i] = i }
        FNR > 3 && $c["cpu_combined_sum_utilization_percent"] != "" {
            ts = $c["timestamp"]
            # the first row with a figure covers the time since the first row
            s += $c["cpu_combined_sum_utilization_percent"] / 100 * (n++ ? ts - t : ts - t0)
            t = ts }
        FNR == 4 { t0 = $c["timestamp"] }
        FNR > 3 { gap = $c["timestamp"] - last; last = $c["timestamp"]; rows++ }
        END { mean = rows > 1 ? (last - t0) / (rows - 1) : 0; g = gap > mean ? gap : mean; printf "%.6f %.6f\n", s, g }' t.csv)
    read -r sum gap <<<"$sum"
    # Above: the kernel's tick lag (2 threads x 4 ms at each end) and 2 %.
    # Below: what no row covers: the last interval (the program exits
    # before the last sample can read it), up to 2 threads through it; that
    # interval is the sampler's pace, --st or longer where a slow build or a
    # busy machine makes it fall behind (the last gap between rows, or the
    # mean one if larger).
    hi=$(awk -v t="$truth" 'BEGIN { print t * 1.02 + 0.02 }')
    lo=$(awk -v t="$truth" -v st="$st" -v g="$gap" 'BEGIN { print t * 0.98 - 2 * 3 * (g > st ? g : st) - 0.02 }')
    within "$sum" "$lo" "$hi" "$tag: CPU seconds (the program's own: $truth)"
    rm -f t.csv
}
for st in 0.001 0.01 0.1; do
    OPENBLAS_NUM_THREADS=2 "$GT_BIN" --st="$st" --tu=seconds -f json --tf=t.csv -- \
        "$PY" numpy_matmul.py >out.txt 2>/dev/null
    check numpy "$st"
    "$GT_BIN" --st="$st" --tu=seconds -f json --tf=t.csv -- "$PY" run_xz.py >out.txt 2>/dev/null
    check "xz -T2" "$st"
done
