# SPDX-License-Identifier: MIT
# `make install` into a staging folder (DESTDIR) from the build under test:
# the versioned shared library and its links, the static library, the
# header, gputracker.pc and the man page, all of the header's version (as
# the Python package is); a program built against the staged
# tree with pkg-config runs; `make uninstall` removes every file it put there.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/_lib.sh"
command -v pkg-config >/dev/null || skip "pkg-config is not installed"
# Only what this script passes reaches make, not the suite's own make.
unset MAKEFLAGS MFLAGS MAKELEVEL
mk=(make -s -C "$ROOT" BUILD="$GT_BUILD" DESTDIR="$TMP/root" PREFIX=/usr/local)
cc=(cc)
# A sanitizer build installs as built, and programs linking it need the runtime.
if nm -D --undefined-only "$GT_BUILD/libgputracker.so" | grep -q __asan_init; then
    mk+=(SAN=1 CC=clang)
    cc=(clang -fsanitize=address,undefined)
fi
"${mk[@]}" install >install.log 2>&1 || fail "make install: $(cat install.log)"

version=$("$GT_BIN" --version | sed -n 's/^gpu-tracker //p')
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "--version: '$version'"
major=${version%%.*}
# One version: the header's GT_VERSION_* macros, from which make names the
# library and writes gputracker.pc and the Python package's _version.py.
header=$(sed -n 's/^#define GT_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9][0-9]*\)$/\2/p' "$ROOT/include/gpu_tracker.h" |
    paste -sd.)
[ "$header" = "$version" ] || fail "--version says $version, include/gpu_tracker.h $header"
grep -qx "__version__ = '$version'" "$ROOT/python/gpu_tracker/_version.py" ||
    fail "python/gpu_tracker/_version.py is not $version: $(grep __version__ "$ROOT/python/gpu_tracker/_version.py")"
P=$TMP/root/usr/local
lib=$P/lib
[ -f "$lib/libgputracker.so.$version" ] && [ ! -L "$lib/libgputracker.so.$version" ] ||
    fail "libgputracker.so.$version is not installed as a file"
[ "$(readlink "$lib/libgputracker.so.$major")" = "libgputracker.so.$version" ] || fail "link libgputracker.so.$major"
[ "$(readlink "$lib/libgputracker.so")" = "libgputracker.so.$major" ] || fail "link libgputracker.so"
soname=$(objdump -p "$lib/libgputracker.so.$version" | awk '$1 == "SONAME" { print $2 }')
[ "$soname" = "libgputracker.so.$major" ] || fail "soname '$soname'"
for f in bin/gpu-tracker lib/libgputracker.a include/gpu_tracker.h lib/pkgconfig/gputracker.pc \
    share/man/man1/gpu-tracker.1; do
    [ -f "$P/$f" ] || fail "$f is not installed"
done
"$P/bin/gpu-tracker" --version | grep -qx "gpu-tracker $version" || fail "installed --version"

# pkg-config, with the staging folder as the system root.
export PKG_CONFIG_PATH=$lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$TMP/root
[ "$(pkg-config --modversion gputracker)" = "$version" ] || fail "pkg-config --modversion"
grep -qx 'prefix=/usr/local' "$lib/pkgconfig/gputracker.pc" || fail "gputracker.pc: prefix"
flags=$(pkg-config --cflags --libs gputracker)
flags=$(echo $flags)
[ "$flags" = "-I$P/include -L$lib -lgputracker" ] || fail "pkg-config --cflags --libs: '$flags'"
for l in -lsqlite3 -lcjson -ldl -lpthread -lm; do
    pkg-config --static --libs gputracker | grep -qw -- "$l" || fail "Libs.private lacks $l"
done

# The example, built against the staged tree only (a copy: no header of the
# checkout beside it), runs on the staged shared library ...
cp "$ROOT/examples/track_region.c" .
# shellcheck disable=SC2086
"${cc[@]}" -std=c11 -Wall -Wextra -Werror -o track_region track_region.c $flags ||
    fail "building against the installed tree"
LD_LIBRARY_PATH=$lib ldd ./track_region | grep -q "libgputracker.so.$major => $lib/libgputracker.so.$major" ||
    fail "track_region does not load the staged library: $(LD_LIBRARY_PATH=$lib ldd ./track_region)"
LD_LIBRARY_PATH=$lib ./track_region 1 >region.txt || fail "track_region failed"
grep -q '^Max RAM:' region.txt || fail "track_region printed no report: $(cat region.txt)"
# ... and links statically with Libs.private alone.
# shellcheck disable=SC2046
"${cc[@]}" -std=c11 -o track_region_static track_region.c $(pkg-config --cflags gputracker) \
    -Wl,-Bstatic -lgputracker -Wl,-Bdynamic $(pkg-config --static --libs-only-other --libs-only-L gputracker) \
    $(pkg-config --static --libs-only-l gputracker | sed 's/-lgputracker//') || fail "static link with Libs.private"
./track_region_static 1 | grep -q '^Max RAM:' || fail "statically linked track_region"

# The man page is where man looks for it.
MANPATH=$P/share/man man -w gpu-tracker 2>/dev/null | grep -qx "$P/share/man/man1/gpu-tracker.1" ||
    [ ! -x "$(command -v man)" ] || fail "man -w gpu-tracker"

"${mk[@]}" uninstall >uninstall.log 2>&1 || fail "make uninstall: $(cat uninstall.log)"
left=$(find "$TMP/root" ! -type d)
[ -z "$left" ] || fail "make uninstall left: $left"
