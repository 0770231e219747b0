# SPDX-License-Identifier: MIT
# The kernel's DRM fdinfo as the GPU backend where neither vendor library
# loads: the real binary over a fake /sys (an xe and an amdgpu card, and a
# display-only ast card that is no GPU) and a fake /proc in which the
# tracked processes write their own descriptors, with texts of real drivers
# (tests/fixtures/drm_fdinfo).  The xe client, shared by the main process
# and its child, counts once, to the main process; the child's amdgpu
# client is the descendants'; the xe's engine share comes from GPU cycles,
# so it is exact however loaded the machine.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/_lib.sh"
FIX="$HERE/../fixtures/drm_fdinfo"
with_rapl # the warnings counted are the GPU's alone
export GT_NVML_LIBRARY="$TMP/none.so" GT_ROCM_SMI_LIBRARY="$TMP/none.so"
SYS="$GT_SYSFS_ROOT"
export GT_FDINFO_PROC_ROOT="$TMP/proc"
mkdir -p "$GT_FDINFO_PROC_ROOT"
card() { # N DRIVER PCI
    mkdir -p "$SYS/class/drm/card$1/device"
    printf 'DRIVER=%s\nPCI_SLOT_NAME=%s\n' "$2" "$3" >"$SYS/class/drm/card$1/device/uevent"
}
card 0 xe 0000:03:00.0
card 1 amdgpu 0000:0b:00.0
echo 17163091968 >"$SYS/class/drm/card1/device/mem_info_vram_total"
echo 1073741824 >"$SYS/class/drm/card1/device/mem_info_vram_used"
echo 7 >"$SYS/class/drm/card1/device/gpu_busy_percent"
card 2 ast 0000:05:00.0

# fdinfo PID FD FILE: descriptor FD of PID, a DRM file whose fdinfo is FILE
# (a FIFO for the main process's).
cat >fdinfo.sh <<'SH'
d="$GT_FDINFO_PROC_ROOT/$1"
mkdir -p "$d/fd" "$d/fdinfo"
ln -sf "$3" "$d/fdinfo/$2"
ln -sf /dev/null "$d/fd/$2"
SH
# The main process's xe client is read through a FIFO that a feeder (not
# tracked) writes one text into for each read, logging which: so the job
# knows when the tracker has sampled a text, however slow it runs (valgrind,
# a loaded machine).  Text a: idle; text b: 300 of 1000 render cycles (30 %)
# and 2000 of 4 x 1000 compute cycles (50 %).
cp "$FIX/xe.txt" a.txt
sed 's/^drm-cycles-rcs:.*/drm-cycles-rcs:\t28258200/; s/^drm-total-cycles-\(.*\):.*/drm-total-cycles-\1:\t7655184225/; s/^drm-cycles-ccs:.*/drm-cycles-ccs:\t2000/' \
    "$FIX/xe.txt" >b.txt
mkfifo fifo
echo a >which
# The FIFO is opened by the feeder's shell itself, so that killing it never
# leaves a process blocked on the open.
(while :; do w=$(cat which); exec 3>fifo; cat $w.txt >&3; exec 3>&-; echo $w >>fed.log; done) 2>/dev/null &
FEEDER=$!
trap 'kill $FEEDER 2>/dev/null; cleanup' EXIT
# fed TEXT N: waits until the tracker has read TEXT N times (5 minutes at most).
cat >fed.sh <<'SH'
i=0
while [ "$(cat fed.log 2>/dev/null | grep -cx "$1")" -lt "$2" ]; do
    i=$((i + 1)); [ $i -lt 6000 ] || { echo "the tracker read $1 fewer than $2 times" >&2; exit 1; }
    sleep 0.05
done
SH
cat >child.sh <<SH
sh fdinfo.sh \$\$ 4 "$FIX/xe.txt"
sh fdinfo.sh \$\$ 5 "$FIX/amdgpu.txt"
echo \$\$ >child.pid
while [ ! -e done ]; do sleep 0.05; done
true
SH
# Text a twice (one reading, then none since: no share yet), then b twice
# (the second read starts only once the first sample's share is taken).
# The main process holds the shared xe client before the child does, so
# that no sample sees the child as its only holder.
cat >main.sh <<SH
sh fdinfo.sh \$\$ 3 "$TMP/fifo"
sh child.sh &
while [ ! -e child.pid ]; do sleep 0.05; done
sh fed.sh a 2 || exit 1
echo b >which.new && mv which.new which
sh fed.sh b 2 || exit 1
touch done
wait
SH
"$GT_BIN" --st=0.1 -f json --gru=bytes -- sh main.sh >out.txt 2>err.txt || fail "exit $?: $(cat err.txt)"
json_report out.txt >r.json
[ -s child.pid ] || fail "the job did not run"
expect() {
    local got
    got=$(jget r.json "$1")
    awk -v a="$got" -v b="$2" 'BEGIN { exit !(a + 0 == b + 0) }' || fail "$1 = $got, expected $2"
}
expect .gpu_utilization.system_gpu_count 2
expect .max_gpu_ram.system_capacity 17163091968
expect .max_gpu_ram.system 1073741824
expect .max_gpu_ram.main $((23992 * 1024))
expect .max_gpu_ram.descendants $((512 * 1024 * 1024))
expect .gpu_process_utilization.main.max_sum_percent 50
expect .gpu_process_utilization.descendants.max_sum_percent 0
# Once each: the xe's capacity, used memory, utilization; both cards'
# power and energy.
for w in "GPU 0 (0000:03:00.0): mem_info_vram_total" "GPU 0 (0000:03:00.0): mem_info_vram_used" \
    "GPU 0 (0000:03:00.0): gpu_busy_percent" "power is not read" "energy is not read"; do
    n=$(grep -cF -- "$w" err.txt || true)
    case "$w" in
    power* | energy*) want=2 ;;
    *) want=1 ;;
    esac
    [ "$n" = $want ] || fail "warning '$w' $n times: $(cat err.txt)"
done
[ "$(wc -l <err.txt)" = 7 ] || fail "warnings: $(cat err.txt)"
