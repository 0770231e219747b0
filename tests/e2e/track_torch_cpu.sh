# SPDX-License-Identifier: MIT
# gt-test: serial: CPU figures against the training loop's own CPU time; 2 threads
# gt-test: no-san: CPU figures against the workload's own; track_cpu runs the same sampler code under the sanitizers
# CPU figures of a small PyTorch training loop on the CPU (Debian's
# python3-torch, 2 intra-op threads) at --st=0.01: the max never exceeds what
# the machine's cores can run, and the CPU seconds summed over the tracking
# file agree with the loop's own getrusage, printed at its end (the same
# reasoning as track_real_cpu.sh, with the uncovered end measured).
. "$(dirname "$0")/_lib.sh"
PY=/usr/bin/python3 # Debian's, with python3-torch (not a virtual environment's)
"$PY" -c 'import torch' 2>/dev/null || skip "torch cannot be imported by $PY (install python3-torch)"
cat >train.py <<'PY'
import os, resource, time
r = resource.getrusage(resource.RUSAGE_SELF)
print("start", r.ru_utime + r.ru_stime, time.time(), flush=True)
import torch
torch.set_num_threads(2)
torch.manual_seed(1)
model = torch.nn.Sequential(torch.nn.Linear(256, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x, y = torch.randn(256, 256), torch.randint(0, 10, (256,))
for _ in range(40):
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
r = resource.getrusage(resource.RUSAGE_SELF)
print("truth", r.ru_utime + r.ru_stime, time.time(), flush=True)
os._exit(0)  # no teardown after the figure, whose CPU time it would miss
PY
st=0.01
"$GT_BIN" --st=$st --tu=seconds -f json --tf=t.csv -- "$PY" train.py >out.txt 2>/dev/null
truth=$(awk '$1 == "truth" { print $2 }' out.txt)
t_end=$(awk '$1 == "truth" { print $3 }' out.txt)
cpu_start=$(awk '$1 == "start" { print $2 }' out.txt)
t_start=$(awk '$1 == "start" { print $3 }' out.txt)
[ -n "$truth" ] || fail "the training loop printed no CPU time"
sed -n '/^{/,$p' out.txt >r.json
cores=$(jget r.json .cpu_utilization.system_core_count)
max=$(jq -r .cpu_utilization.combined.max_sum_percent r.json)
[ "$max" != null ] || fail "CPU percents unavailable"
# Never 0 for a loop that ran, never above the cores (torch may start more
# threads than the 2 intra-op ones: its inter-op pool, the interpreter's).
within "$max" 1 $((100 * cores + 5)) "max CPU percent (cores)"
sum=$(awk -F, 'FNR == 3 { for (i = 1; i <= NF; i++) c[$i] = i }
    FNR > 3 && $c["cpu_combined_sum_utilization_percent"] != "" {
        ts = $c["timestamp"]
        # the first row with a figure covers the time since the first row
        s += $c["cpu_combined_sum_utilization_percent"] / 100 * (n++ ? ts - t : ts - t0)
        t = ts }
    FNR == 4 { t0 = $c["timestamp"] }
    END { printf "%.6f\n", s }' t.csv)
# The first row, and the last that could still read the loop's CPU clock:
# the one before the last (taken after the exit).
read -r t_first t_read <<EOF
$(awk -F, 'FNR == 3 { for (i = 1; i <= NF; i++) c[$i] = i }
    FNR == 4 { f = $c["timestamp"] }
    FNR > 3 { p = t; t = $c["timestamp"] } END { printf "%.6f %.6f\n", f, p }' t.csv)
EOF
# Above: the kernel's tick lag (2 threads x 4 ms at each end) and 2 %.
# Below: the CPU time the script used before its first line (the
# interpreter's start, which may precede the first sample), and what no row
# covers, at most all cores through it: from the script's start to the first
# row, and from the last row that read the clock to the loop's own reading
# (a sampler delayed by a loaded machine makes these gaps longer than --st,
# so they are measured, not assumed).
hi=$(awk -v t="$truth" 'BEGIN { print t * 1.02 + 0.02 }')
lo=$(awk -v t="$truth" -v t0="$cpu_start" -v c="$cores" -v s="$t_start" -v f="$t_first" \
    -v e="$t_end" -v r="$t_read" 'BEGIN { a = f - s; if (a < 0) a = 0; g = e - r; if (g < 0) g = 0
        print (t - t0) * 0.98 - c * (a + g) - 0.02 }')
within "$sum" "$lo" "$hi" "CPU seconds (the loop's own: $truth)"
