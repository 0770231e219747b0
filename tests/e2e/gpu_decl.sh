# SPDX-License-Identifier: MIT
# gt-test: no-san: compiles the declaration headers, runs no C code of the build
# Our declarations of the vendor libraries (src/lib/gpu/nvml_decl.h and
# rocm_smi_decl.h, shared by the backends and the fakes) against references
# we did not write: NVIDIA's nvml.h as bindgen read it (Debian's
# librust-nvml-wrapper-sys-dev, bindings.rs) and AMD's rocm_smi.h (Debian's
# librocm-smi-dev).  tests/decl/decl_check.py writes a C file of
# _Static_asserts from what our header declares (clang's AST of it); gcc and
# clang compile it.  Then one field and one constant of each header are
# changed in a copy, and the check must fail naming them: a check that
# cannot fail proves nothing.
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/_lib.sh"
ROOT=$(cd "$HERE/../.." && pwd)
CHECK="$ROOT/tests/decl/decl_check.py"
BINDINGS=$(ls /usr/share/cargo/registry/nvml-wrapper-sys-*/src/bindings.rs 2>/dev/null | sort -V | tail -n 1)
[ -n "$BINDINGS" ] || skip "no bindings.rs of nvml-wrapper-sys (scripts/setup-deps.sh test installs librust-nvml-wrapper-sys-dev)"
[ -f /usr/include/rocm_smi/rocm_smi.h ] || skip "no rocm_smi.h (scripts/setup-deps.sh test installs librocm-smi-dev)"
NVML_REF="bindings.rs of nvml-wrapper-sys (NVIDIA's nvml.h, NVML API 11)"
RSMI_REF="AMD's rocm_smi.h (librocm-smi-dev)"

# nvml_check DIR: checks DIR/gpu/nvml_decl.h; the compilers' errors in
# DIR/err.txt.  rsmi_check DIR: the same for rocm_smi_decl.h.
compile() {
    local dir=$1 src=$2 cc
    for cc in gcc clang; do
        $cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -fsyntax-only -I"$dir" -I"$dir/out" "$src" \
            2>>"$dir/err.txt" || return 1
    done
}
nvml_check() {
    mkdir -p "$1/out"
    : >"$1/err.txt"
    python3 "$CHECK" --rust "$BINDINGS" "$1/gpu/nvml_decl.h" "$NVML_REF" "$1/out" 2>>"$1/err.txt" &&
        compile "$1" "$1/out/check.c"
}
rsmi_check() {
    mkdir -p "$1/out"
    : >"$1/err.txt"
    python3 "$CHECK" "$1/gpu/rocm_smi_decl.h" '<rocm_smi/rocm_smi.h>' "$RSMI_REF" "$1/out/rsmi_check.c" \
        2>>"$1/err.txt" && compile "$1" "$1/out/rsmi_check.c"
}

# The headers as they are.
mkdir -p ours/gpu
cp "$ROOT/src/lib/gpu/nvml_decl.h" "$ROOT/src/lib/gpu/rocm_smi_decl.h" ours/gpu/
nvml_check ours || fail "nvml_decl.h against $NVML_REF: $(cat ours/err.txt)"
rsmi_check ours || fail "rocm_smi_decl.h against $RSMI_REF: $(cat ours/err.txt)"
# Each function our headers declare has its check.
for f in $(sed -n 's/^[a-z_A-Z]* \**\([a-zA-Z_0-9]*\)(.*/\1/p' ours/gpu/nvml_decl.h); do
    grep -q "\"$f: the return or argument types" ours/out/check.c || fail "$f: not checked"
done
for f in $(sed -n 's/^[a-z_A-Z]* \**\([a-zA-Z_0-9]*\)(.*/\1/p' ours/gpu/rocm_smi_decl.h); do
    grep -q "\"$f: the return or argument types" ours/out/rsmi_check.c || fail "$f: not checked"
done

# mutant NAME VENDOR PYTHON-EXPR EXPECTED: a copy of the VENDOR header
# (nvml or rsmi) changed by PYTHON-EXPR (on s, the text) must fail the
# check with an error containing EXPECTED.
mutant() {
    local name=$1 vendor=$2 edit=$3 expected=$4 file
    file=$([ "$vendor" = nvml ] && echo nvml_decl.h || echo rocm_smi_decl.h)
    mkdir -p "$name/gpu"
    python3 -c "import sys; s = open(sys.argv[1]).read(); t = $edit; assert t != s, 'no change'; open(sys.argv[2], 'w').write(t)" \
        "ours/gpu/$file" "$name/gpu/$file" || fail "$name: the edit did not apply"
    if "${vendor}_check" "$name"; then
        fail "$name: the check passed a changed $file"
    fi
    grep -qF -- "$expected" "$name/err.txt" || fail "$name: no '$expected' in: $(cat "$name/err.txt")"
}
mutant nvml_field nvml "s.replace('    unsigned int gpu, memory;', '    unsigned long long gpu;\n    unsigned int memory;')" \
    "nvmlUtilization_t.memory: the offset differs"
mutant nvml_order nvml "s.replace('unsigned int smUtil, memUtil, encUtil, decUtil;', 'unsigned int smUtil, memUtil, decUtil, encUtil;')" \
    "nvmlProcessUtilizationSample_t: fields pid, timeStamp, smUtil, memUtil, decUtil, encUtil here"
mutant nvml_type nvml "s.replace('unsigned long long total, free, used;', 'unsigned long long total, free;\n    unsigned int used;')" \
    "nvmlMemory_t.used: the type (here: unsigned int) differs"
mutant nvml_enum nvml "s.replace('NVML_ERROR_INSUFFICIENT_SIZE = 7,', 'NVML_ERROR_INSUFFICIENT_SIZE = 8,')" \
    "NVML_ERROR_INSUFFICIENT_SIZE: the value differs"
mutant nvml_func nvml "s.replace('nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power)', 'nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned long long *power)')" \
    "nvmlDeviceGetPowerUsage: the return or argument types"
mutant nvml_unknown nvml "s.replace('NVML_ERROR_UNKNOWN = 999,', 'NVML_ERROR_UNKNOWN = 999, NVML_ERROR_MADE_UP = 1000,')" \
    "NVML_ERROR_MADE_UP: declared in our header but not in"
mutant rsmi_field rsmi "s.replace('    uint64_t vram_usage;', '    uint32_t vram_usage;')" \
    "rsmi_process_info_t.vram_usage: the type (here: uint32_t) differs"
mutant rsmi_enum rsmi "s.replace('RSMI_STATUS_NOT_FOUND = 10,', 'RSMI_STATUS_NOT_FOUND = 9,')" \
    "RSMI_STATUS_NOT_FOUND: the value differs"
mutant rsmi_func rsmi "s.replace('rsmi_dev_busy_percent_get(uint32_t dv_ind, uint32_t *busy_percent)', 'rsmi_dev_busy_percent_get(uint32_t dv_ind, uint64_t *busy_percent)')" \
    "rsmi_dev_busy_percent_get: the return or argument types"
mutant rsmi_status rsmi "s.replace('typedef unsigned int rsmi_status_t;', 'typedef int rsmi_status_t;')" \
    "rsmi_status_t: the type (here: int) differs"
exit 0
