#!/bin/sh
# Installs the Debian packages gpu-tracker builds with (no argument) or builds
# and tests with ("test"), if missing.  The only place the project installs
# anything; everything comes from Debian.
#
#   scripts/setup-deps.sh [test]
set -eu
PKGS="build-essential libsqlite3-dev libcjson-dev"
if [ "${1:-}" = test ]; then
PKGS="$PKGS clang libcmocka-dev sqlite3 jq valgrind"
# The Python package's tests (pandas is optional for the package itself)
# python3: also the real workloads of the peak tests (a Pool, make recipes)
PKGS="$PKGS python3 python3-pytest python3-nbclient python3-ipykernel python3-nbformat python3-pandas"
# Live line, metrics endpoint and plots are tested with these.
PKGS="$PKGS tmux curl prometheus chromium"
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
