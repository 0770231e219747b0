# SPDX-License-Identifier: MIT
# gt-test: serial: `make -j2` and a process pool keep both cores busy
# Real programs from Debian packages, with the truth measured independently
# in the same run: a multiprocessing.Pool (combined RSS against the union of
# the physical pages its processes map, read from pagemap while they hold
# still) and `make -j2` (main's peak against make's own VmHWM).
DATA="$(cd "$(dirname "$0")" && pwd)/data"
. "$(dirname "$0")/_lib.sh"
[ "$(id -u)" = 0 ] || { echo "skipped: pagemap frame numbers and taskstats need root"; exit 0; }
ncpu=$(getconf _NPROCESSORS_ONLN)
batch=$((2 * ncpu > 32 ? 2 * ncpu : 32))
TOL=$((2 * ncpu * batch * $(getconf PAGESIZE))) # see track_peaks.sh
hwm_of() { awk '/^VmHWM:/ { print $2 * 1024 }' "$1"; }

# --- Pool: the workers hold their memory until released.
"$GT_BIN" --st=0.05 --ru=bytes --tf=t.csv -f json -- python3 "$DATA/pool.py" "$TMP" >out.txt 2>err.txt &
gt=$!
workers_ready() { [ "$(ls ready.* 2>/dev/null | wc -l)" = 2 ]; }
wait_for workers_ready
main=$(cat /proc/$gt/task/*/children | tr -s ' \n' ' ')
main=${main% }
kids=$(cat /proc/$main/task/*/children | tr -s ' \n' ' ')
[ "$(echo $kids | wc -w)" = 2 ] || fail "pool: workers of $main: '$kids'"
# The private/shared split is refreshed by page walks within a CPU budget (1 %
# of a core, refilled with wall time): 5 s of quiet give every process of the
# pool a fresh walk whatever the load, since a walk's cost is CPU time (an
# ASan build's walks cost several times a plain build's).
sleep 5
t0=$(date +%s.%N)
python3 "$DATA/union.py" $main $kids >union.txt
t1=$(date +%s.%N)
# A sample taken after the reading, so one falls inside the quiet window.
sampled_after() { awk -F, -v t="$1" 'NR > 3 && $22 + 0 > t + 0 { f = 1 } END { exit !f }' t.csv; }
wait_for sampled_after "$t1"
t2=$(date +%s.%N)
# The pool's Python threads may still allocate a little meanwhile: the union
# read again after the window bounds the samples from the other side.
python3 "$DATA/union.py" $main $kids >union2.txt
touch release
wait $gt || fail "pool: gpu-tracker failed: $(cat err.txt)"
union=$(cat union.txt) union2=$(cat union2.txt)
lo=$((union < union2 ? union : union2)) hi=$((union > union2 ? union : union2))
awk -F, -v a="$t0" -v b="$t2" 'NR > 3 && $22 + 0 >= a + 0 && $22 + 0 <= b + 0 { print $3 }' t.csv | sort -u >window.txt
[ -s window.txt ] || fail "pool: no sample between $t0 and $t2"
# Combined RSS counts a page mapped by several processes once per mapping
# path (its largest share, the Python package's rule), which is the union
# when the processes share the same pages of each path: here within 1%.
while read -r c; do
    within "$c" $((lo * 99 / 100)) $((hi * 101 / 100)) "pool: combined RSS vs the union of pages $union, then $union2"
done <window.txt
# Peaks: the parent's own (wait4 of it would be a worker's), and the larger
# worker's, each against the VmHWM it wrote at its end.
sed '1,/^Resource tracking complete/d' out.txt >r.json # after the pool's own output
truth=$(hwm_of status.main)
within "$(jget r.json .peak_ram.main)" $((truth - TOL)) $((truth + TOL)) "pool: the parent's own peak $truth"
largest=0
for f in status.[0-9]*; do v=$(hwm_of "$f"); [ "$v" -gt "$largest" ] && largest=$v; done
within "$(jget r.json .peak_ram.largest_descendant)" $((largest - TOL)) $((largest + TOL)) \
    "pool: the larger worker's peak $largest"
echo "pool: union $union then $union2, combined $(tr '\n' ' ' <window.txt); main $(jget r.json .peak_ram.main)" \
    "(VmHWM $truth), largest descendant $(jget r.json .peak_ram.largest_descendant) (VmHWM $largest)"

# --- make -j2 of a small generated tree: six recipes run python3, each
# growing by a different amount and writing its own status; the last recipe
# reads make's own status ($PPID of a recipe's shell is make).  wait4's
# ru_maxrss of make would be its largest child's.
mkdir mk && cd mk
{
    echo 'all: t1 t2 t3 t4 t5 t6'
    echo '	cat /proc/$$PPID/status >make.txt'
    for i in 1 2 3 4 5 6; do
        echo "t$i:"
        echo "	python3 -c 'x = b\"m\" * ($i * 15 << 20); open(\"t$i.txt\", \"w\").write(open(\"/proc/self/status\").read())'"
    done
} >Makefile
"$GT_BIN" --st=0.05 --ru=bytes -f json -- make -s -j2 >out.txt 2>err.txt || fail "make: $(cat err.txt)"
json_report out.txt >r.json
truth=$(hwm_of make.txt)
within "$(jget r.json .peak_ram.main)" $((truth - TOL)) $((truth + TOL)) "make's own peak $truth"
[ "$(jget r.json .peak_ram.main_method)" = exact ] || fail "make: $(jq -c .peak_ram r.json)"
largest=0
for i in 1 2 3 4 5 6; do v=$(hwm_of t$i.txt); [ "$v" -gt "$largest" ] && largest=$v; done
within "$(jget r.json .peak_ram.largest_descendant)" $((largest - TOL)) $((largest + TOL)) \
    "make: largest python's own peak $largest"
echo "make: main $(jget r.json .peak_ram.main) (VmHWM $truth), largest descendant" \
    "$(jget r.json .peak_ram.largest_descendant) (VmHWM $largest)"
