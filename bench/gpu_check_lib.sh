# SPDX-License-Identifier: MIT
# The parsers of bench/gpu-check, apart so that tests/e2e/gpu_check.sh can
# run them on text in NVIDIA's documented formats without a GPU.  Each reads
# a file and prints its figures on stdout; none needs more than awk.

# report_value REPORT PATH: one value of gpu-tracker's text report, named by
# its section path ("Max GPU RAM/Main", "Energy/GPU/Devices/gpu-0/Energy"):
# each level of the report is indented by three spaces.  Prints nothing when
# the report has no such line.
report_value() {
    awk -v want="$2" '
    {
        match($0, /^ */)
        lvl = int(RLENGTH / 3)
        line = substr($0, RLENGTH + 1)
        key = line; sub(/:.*/, "", key)
        val = ""
        if (index(line, ": ")) { val = line; sub(/^[^:]*: /, "", val) }
        path[lvl] = key
        p = path[0]
        for (i = 1; i <= lvl; i++) p = p "/" path[i]
        if (p == want) { print val; exit }
    }' "$1"
}

# csv_column_stat CSV COLUMN STAT: max or mean of a column of a tracking
# file (gpu-tracker's CSV: two lines of static data, then the header and one
# row per sample); empty cells are left out.  Prints nothing when no cell
# has a value.
csv_column_stat() {
    awk -F, -v col="$2" -v stat="$3" '
    NR == 3 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
    NR > 3 && c && $c != "" {
        n++; s += $c
        if (n == 1 || $c + 0 > m) m = $c + 0
    }
    END { if (n) printf "%.6g\n", stat == "max" ? m : s / n }' "$1"
}

# csv_rows CSV: the number of samples in a tracking file, the seconds from
# its first to its last, and the Unix times of both, as "rows seconds first
# last".
csv_rows() {
    awk -F, '
    NR == 3 { for (i = 1; i <= NF; i++) if ($i == "timestamp") c = i; next }
    NR > 3 { n++; if (n == 1) t0 = $c; t1 = $c }
    END { printf "%d %.6f %.6f %.6f\n", n, n ? t1 - t0 : 0, t0, t1 }' "$1"
}

# proc_csv_stat PROCESSES_CSV PID COLUMN STAT: max or mean of one process's
# column in a per-process table (--per-process: a header, then one row per
# process and sample); empty cells are left out.
proc_csv_stat() {
    awk -F, -v pid="$2" -v col="$3" -v stat="$4" '
    NR == 1 { for (i = 1; i <= NF; i++) { if ($i == col) c = i; if ($i == "pid") p = i }; next }
    c && p && $p == pid && $c != "" { n++; s += $c; if (n == 1 || $c + 0 > m) m = $c + 0 }
    END { if (n) printf "%.6g\n", stat == "max" ? m : s / n }' "$1"
}

# smi_apps_max FILE: from the output of
#   nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits -lms N
# ("12345, 1536" per process and poll, memory in MiB), each process's largest
# figure as "pid MiB", one line per process in order of first appearance.
smi_apps_max() {
    awk -F', *' '
    $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9.]+$/ {
        if (!($1 in m)) order[++n] = $1
        if (!($1 in m) || $2 + 0 > m[$1]) m[$1] = $2 + 0
    }
    END { for (i = 1; i <= n; i++) print order[i], m[order[i]] }' "$1"
}

# smi_gpu_stats FILE FROM TO: from the output of
#   nvidia-smi --query-gpu=timestamp,power.draw,utilization.gpu,memory.used --format=csv,noheader,nounits -lms N
# ("2026/11/26 01:02:03.456, 69.52, 100, 2048" per poll, local time, watts,
# percent, MiB), the polls from Unix time FROM to TO: "energy_j mean_w
# max_w mean_util max_used_mib polls", energy integrated over time by the
# trapezoid rule.  A field of "[N/A]" or "[Not Supported]" is left out.
smi_gpu_stats() {
    awk -F', *' -v from="$2" -v to="$3" '
    function secs(ts,    d, t, s) {
        split(ts, d, /[\/ :]/)
        s = mktime(d[1] " " d[2] " " d[3] " " d[4] " " d[5] " 0")
        return s + d[6]
    }
    $1 ~ /^[0-9]+\/[0-9]+\/[0-9]+ / {
        t = secs($1)
        if (t < from || t > to) next
        polls++
        if ($2 ~ /^[0-9.]+$/) {
            w = $2 + 0; pw++; sw += w; if (w > mw) mw = w
            if (have) e += (t - lt) * (w + lw) / 2
            have = 1; lt = t; lw = w
        }
        if ($3 ~ /^[0-9.]+$/) { pu++; su += $3; if ($3 + 0 > mu) mu = $3 + 0 }
        if ($4 ~ /^[0-9.]+$/ && $4 + 0 > mm) mm = $4 + 0
    }
    END {
        printf "%.3f %.3f %.3f %.3f %.1f %d\n", e, pw ? sw / pw : 0, mw, pu ? su / pu : 0, mm, polls
    }' "$1"
}

# smi_pmon_max FILE: from the output of `nvidia-smi pmon -s u -d 1` (comment
# lines start with "#"; then "gpu pid type sm mem enc dec ... command", a
# "-" where there is no figure), each process's largest and mean SM percent
# over its lines as "pid max mean", in order of first appearance.
smi_pmon_max() {
    awk '
    /^#/ { for (i = 2; i <= NF; i++) if ($i == "pid") pc = i - 1; else if ($i == "sm") sc = i - 1; next }
    pc && sc && $pc ~ /^[0-9]+$/ {
        v = $sc ~ /^[0-9]+$/ ? $sc + 0 : 0
        if (!($pc in m)) order[++n] = $pc
        if (!($pc in m) || v > m[$pc]) m[$pc] = v
        s[$pc] += v; k[$pc]++
    }
    END { for (i = 1; i <= n; i++) printf "%s %s %.6g\n", order[i], m[order[i]], s[order[i]] / k[order[i]] }' "$1"
}

# workload_value FILE PID KEY: a key=value figure gpu_load printed for PID.
workload_value() {
    awk -v pid="$2" -v key="$3" '
    $1 == "gpu_load" && $2 == "pid=" pid {
        for (i = 3; i <= NF; i++) if (index($i, key "=") == 1) { print substr($i, length(key) + 2); exit }
    }' "$1"
}

# workload_pids FILE: the PIDs of the gpu_load processes, in order of start.
workload_pids() {
    awk '$1 == "gpu_load" && /allocated_mib=/ { sub(/^pid=/, "", $2); print $2 }' "$1"
}
