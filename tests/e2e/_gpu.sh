# SPDX-License-Identifier: MIT
# Helpers for the GPU tests: the fake vendor libraries (tests/fakes) loaded
# through the real dlopen path, and a three-level process tree whose PIDs the
# fakes read from files.  Sourced after _lib.sh.
FAKES="$GT_BUILD/fakes"
export GT_NVML_LIBRARY="$FAKES/nvml.so" GT_ROCM_SMI_LIBRARY="$TMP/no-rocm-smi.so"
export FAKE_NVML_SCENARIO="$TMP/nvml.json" FAKE_NVML_LOG="$TMP/nvml.log"
export FAKE_RSMI_SCENARIO="$TMP/rsmi.json" FAKE_RSMI_LOG="$TMP/rsmi.log"
with_rapl # the warnings counted are the GPU's alone

# The job: main.sh writes its PID to main.pid and runs child.sh, which
# writes child.pid and runs grand.sh (grand.pid), which lives SECS seconds
# and, where a fake library serves samples (its log has "sample 0 N"
# lines), until three more samples of GPU 0 were taken: the whole tree is
# sampled however slowly a loaded machine runs the tracker.
# The trailing `true`s keep each shell from exec'ing into its child.
SECS=${SECS:-1.5}
cat >grand.sh <<SH
echo \$\$ >grand.pid; sleep $SECS
for log in nvml.log rsmi.log; do
    n=\$(grep -c '^sample 0 ' \$log 2>/dev/null) || continue
    until [ "\$(grep -c '^sample 0 ' \$log)" -ge \$((n + 3)) ]; do sleep 0.01; done
done
true
SH
cat >child.sh <<'SH'
echo $$ >child.pid; sh grand.sh; true
SH
cat >main.sh <<'SH'
echo $$ >main.pid; sh child.sh; true
SH

# track ARGS...: runs the job under gpu-tracker with JSON output into r.json,
# warnings into err.txt; fails on a non-zero exit.
track() {
    rm -f main.pid child.pid grand.pid nvml.log rsmi.log
    "$GT_BIN" --st=0.1 -f json "$@" -- sh main.sh >out.txt 2>err.txt ||
        fail "gpu-tracker $*: exit $?: $(cat err.txt)"
    json_report out.txt >r.json
}

# expect FILTER VALUE: a JSON report value, equal as text or as a number
# (to 12 significant digits: unit conversion multiplies in floating point).
expect() {
    local got
    got=$(jget r.json "$1")
    [ "$got" = "$2" ] || awk -v a="$got" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a ~ /^[-0-9.e+]+$/ && d <= 1e-12 * (b < 0 ? -b : b)) }' ||
        fail "$1 = $got, expected $2"
}

# warned_once TEXT: err.txt has exactly one line containing TEXT.
warned_once() {
    local n
    n=$(grep -cF -- "$1" err.txt || true)
    [ "$n" = 1 ] || fail "warning '$1' appears $n times: $(cat err.txt)"
}

# amd_sysfs: a DRM card driven by amdgpu in the tree GT_SYSFS_ROOT names:
# without one the ROCm SMI backend does not initialize its library (as on a
# machine without an AMD GPU).
amd_sysfs() {
    mkdir -p "$GT_SYSFS_ROOT/class/drm/card0/device" "$TMP/drivers/amdgpu"
    ln -sfn "$TMP/drivers/amdgpu" "$GT_SYSFS_ROOT/class/drm/card0/device/driver"
}
