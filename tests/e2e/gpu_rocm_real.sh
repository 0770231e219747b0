# SPDX-License-Identifier: MIT
# AMD's real ROCm SMI library (Debian's librocm-smi64-1), loaded through the
# production path (its default dlopen name), on a machine without an AMD
# GPU: the run goes on with the Python package's warning and why, and
# carries none of the library's own stderr lines ("Failed to open drm root
# directory ...", "Exception caught: rsmi_init."), because the library is
# not initialized where sysfs shows no AMD GPU.  With a fixture sysfs that
# has an amdgpu card the library is initialized: its own error is in the
# warning and tracking goes on.  Both under valgrind too (no error, no
# leak), and the library's answer to each function gpu-tracker calls
# (tests/decl/rsmi_probe.c; recorded in docs/measurements.md).
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/_lib.sh"
ROOT=$(cd "$HERE/../.." && pwd)
# ldconfig is in /sbin, which a user's PATH may lack.
LDCONFIG=$(command -v ldconfig || echo /sbin/ldconfig)
"$LDCONFIG" -p | grep -q 'librocm_smi64\.so\.1 ' ||
    skip "no librocm_smi64.so.1 (scripts/setup-deps.sh test installs librocm-smi64-1)"
for v in /sys/class/drm/card*/device/vendor; do
    [ "$(cat "$v" 2>/dev/null)" != 0x1002 ] || skip "this machine has an AMD GPU: the library finds it"
done
unset GT_ROCM_SMI_LIBRARY GT_SYSFS_ROOT
export GT_NVML_LIBRARY=$TMP/no-nvml.so
NOISE='Failed to open drm root directory|Exception caught'
CANNOT="The ROCm SMI library (librocm_smi64.so.1) is installed but cannot connect to a GPU. The GPU RAM and GPU utilization values will remain 0.0."

# run NAME ARGS...: gpu-tracker (GT, default GT_BIN) tracking a command that
# writes a line to stderr; NAME.out and NAME.err; fails unless it exits 0
# with a report of no GPU.
run() {
    local name=$1
    shift
    "${GT:-$GT_BIN}" --st=0.05 -f json "$@" -- sh -c 'echo tracked-err >&2' >"$name.out" 2>"$name.err" ||
        fail "$name: exit $?: $(cat "$name.err")"
    [ "$(json_report "$name.out" | jq -r .gpu_utilization.system_gpu_count)" = 0 ] ||
        fail "$name: no report of 0 GPUs: $(cat "$name.out")"
    grep -qx tracked-err "$name.err" || fail "$name: the command's own stderr is lost: $(cat "$name.err")"
}

# No AMD GPU in sysfs: nothing from the library, the warning and why.
for brand in "" --gb=amd; do
    run plain $brand
    ! grep -E "$NOISE" plain.err || fail "the library's noise in a tracked run ($brand): $(cat plain.err)"
    grep -qxF "gpu-tracker: warning: $CANNOT" plain.err || fail "no warning ($brand): $(cat plain.err)"
    grep -q "rsmi_init: not called: no AMD GPU in /sys/class/drm" plain.err || fail "no reason ($brand): $(cat plain.err)"
done
run quiet --disable-logs
[ "$(cat quiet.err)" = tracked-err ] || fail "--disable-logs: more than the command's stderr: $(cat quiet.err)"

# A fixture sysfs with an amdgpu card: the library is initialized.  Where
# the machine has no /sys/class/drm the library fails and says why on
# stderr, as it does for any caller; gpu-tracker's warning carries its error.
mkdir -p sys/class/drm/card0/device drivers/amdgpu
ln -s "$TMP/drivers/amdgpu" sys/class/drm/card0/device/driver
use_hooks
export GT_SYSFS_ROOT=$TMP/sys
# Under AddressSanitizer a C program cannot let a C++ library throw (the
# library catches its own exceptions) unless libstdc++ is loaded from the
# start (google/sanitizers#934).
preload=
[ -z "${GT_TEST_SAN:-}" ] || preload=$("$LDCONFIG" -p | awk '/libstdc\+\+\.so\.6 .*x86-64/ { print $NF; exit }')
LD_PRELOAD=$preload run card --gb=amd
grep -qxF "gpu-tracker: warning: $CANNOT" card.err || fail "no warning with a card: $(cat card.err)"
if [ ! -e /sys/class/drm ]; then
    grep -qE "$NOISE" card.err || fail "the library was not initialized: $(cat card.err)"
    grep -q "gpu-tracker: warning: rsmi_init: An error occurred during initialization.*, ROCm SMI status 8$" card.err ||
        fail "the library's error is not in the warning: $(cat card.err)"
fi

# The same under valgrind: no invalid access, no leak.
if [ -z "${GT_TEST_SAN:-}" ] && command -v valgrind >/dev/null; then
    cat >vg.sh <<EOF
#!/bin/sh
exec valgrind -q --vgdb=no --suppressions=$ROOT/tests/valgrind.supp --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect \
    --errors-for-leak-kinds=definite,indirect --log-file="$TMP/vg.%p.log" "$GT_BIN" "\$@"
EOF
    chmod +x vg.sh
    GT=$TMP/vg.sh run vg_card --gb=amd
    unset GT_SYSFS_ROOT
    GT=$TMP/vg.sh run vg_plain --gb=amd
    ! grep '^==' vg.*.log || fail "valgrind found errors"
else
    skip_part valgrind "the sanitizer build checks memory itself"
fi

# The library's answers to each function gpu-tracker calls, here.
unset GT_SYSFS_ROOT
cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I"$ROOT/src/lib" -o probe "$ROOT/tests/decl/rsmi_probe.c" ||
    fail "the probe does not build"
./probe >probe.txt 2>probe.err || fail "probe: exit $?: $(cat probe.txt probe.err)"
cat probe.txt
if [ ! -e /sys/class/drm ]; then
    # The answers docs/measurements.md records, call by call: after a failed
    # rsmi_init the library still counts its devices (none), so its status,
    # not the count, tells that it cannot be used; a device function with an
    # index it did not count fails or crashes.
    cat >want.txt <<'TXT'
rsmi_init 8
rsmi_num_monitor_devices 0
rsmi_dev_unique_id_get 1
rsmi_dev_memory_total_get 1
rsmi_dev_memory_usage_get 1
rsmi_dev_busy_percent_get 1
rsmi_dev_power_ave_get 1
rsmi_dev_energy_count_get killed
rsmi_compute_process_info_get 2
rsmi_compute_process_info_by_pid_get 10
rsmi_shut_down 8
TXT
    awk '{ print $1, $2 }' probe.txt | diff want.txt - >diff.txt ||
        fail "the library's answers differ from those docs/measurements.md records: $(cat diff.txt)"
    grep -q '^rsmi_num_monitor_devices 0 .* | 0 devices$' probe.txt || fail "device count"
fi
exit 0
