#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs the Debian packages gpu-tracker builds with (no argument) or builds
# and tests with ("test"), if missing.  The only place the project installs
# anything; everything comes from Debian.
#
#   scripts/setup-deps.sh [test]
set -eu
PKGS="build-essential libsqlite3-dev libcjson-dev"
# The event backend (--events): its BPF program is compiled by clang and
# turned into a skeleton by bpftool, and loaded through libbpf.  Without
# them the build leaves the backend out (and --events=on says so).
PKGS="$PKGS libbpf-dev bpftool clang"
if [ "${1:-}" = test ]; then
PKGS="$PKGS clang libcmocka-dev sqlite3 jq valgrind"
# The Python package's tests (pandas is optional for the package itself);
# python3 is also the real workloads of the peak tests (a Pool, make recipes)
PKGS="$PKGS python3 python3-pytest python3-nbclient python3-ipykernel python3-nbformat python3-pandas"
# Model complexity is counted on real PyTorch models (CPU build; on a bare
# Debian 12 it pulls in about 600 MB of dependencies).
PKGS="$PKGS python3-torch"
# Live line, metrics endpoint and plots are tested with these.
PKGS="$PKGS tmux curl prometheus chromium"
# The Slurm tests start their own munged, slurmctld and two slurmd, and load
# the SPANK plugin, built against libslurm-dev's spank.h.
PKGS="$PKGS slurm-wlm munge iproute2 libslurm-dev"
# Real multi-threaded programs whose CPU figures the tests check.
PKGS="$PKGS python3-numpy libopenblas0-pthread xz-utils"
# References we did not write for our declarations of the vendor GPU
# libraries: NVIDIA's nvml.h as bindgen read it (bindings.rs) and AMD's
# rocm_smi.h; and AMD's real ROCm SMI library, loaded on a machine without
# an AMD GPU (tests/e2e/gpu_decl.sh, gpu_rocm_real.sh).
PKGS="$PKGS librust-nvml-wrapper-sys-dev librocm-smi-dev librocm-smi64-1"
# `make install` is checked with pkg-config; the man page is rendered with groff.
PKGS="$PKGS pkg-config groff-base man-db"
fi
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "gpu-tracker: installing Debian packages:$missing"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
        echo "gpu-tracker: as root, run: apt-get install$missing" >&2
        exit 1
    fi
    SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
# Where systemd runs, the packages start their daemons; the tests start and
# stop their own, so the system's Slurm daemons must not stay enabled.
case " $missing " in *" slurm-wlm "*)
    if [ -d /run/systemd/system ]; then
        $SUDO systemctl disable --now slurmd slurmctld >/dev/null 2>&1 || true
    fi ;;
esac
