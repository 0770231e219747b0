# SPDX-License-Identifier: MIT
# The test hooks (src/lib/util/test_hooks.c) steer only the test build: the
# production binary, libraries and plugin hold none of the variables' names
# that the hooks read as a C string (the name and its NUL, which a macro of
# the same name in -g3's debug information is not), while the test build's
# hold each (so that the list checked is the one the tests set); and a
# fixture RAPL tree in GT_SYSFS_ROOT is read by the test build's binary and
# ignored by the production one.
SRC=$(cd "$(dirname "$0")/../.." && pwd)/src/lib/util/test_hooks.c
. "$(dirname "$0")/_lib.sh"
vars=$(grep -o 'getenv("[A-Z_]*")' "$SRC" | sed 's/getenv("\(.*\)")/\1/')
[ "$(printf '%s\n' $vars | wc -l)" -ge 5 ] || fail "the hooks' variables in $SRC: $vars"
HOOKS_BIN=$GT_BUILD/hooks/gpu-tracker
# The production files a user runs or loads (the plugin where it is built).
production=("$GT_BIN" "$GT_BUILD/libgputracker.so" "$GT_BUILD/libgputracker.a")
[ -f "$GT_BUILD/gpu_tracker_spank.so" ] && production+=("$GT_BUILD/gpu_tracker_spank.so")
for v in $vars; do
    for f in "${production[@]}"; do
        ! grep -qaP "$v\\x00" "$f" || fail "the production file $f names $v"
    done
    for f in "$HOOKS_BIN" "$GT_BUILD/hooks/libgputracker.so"; do
        grep -qaP "$v\\x00" "$f" || fail "the test build's $f does not name $v"
    done
done

# The same run under each binary, a fixture RAPL tree in the environment:
# only the test build reads it (the domain's name is no real machine's).
mkdir -p sys/class/powercap/intel-rapl:0
printf 'package-hook\n' >sys/class/powercap/intel-rapl:0/name
printf '262143328850\n' >sys/class/powercap/intel-rapl:0/max_energy_range_uj
printf '1000000\n' >sys/class/powercap/intel-rapl:0/energy_uj
for bin in "$HOOKS_BIN" "$GT_BIN"; do
    GT_SYSFS_ROOT=$TMP/sys "$bin" -f json --st=0.05 --disable-logs -- true >out.txt ||
        fail "$bin: exit $?"
    json_report out.txt >"r.json"
    read_fixture=$(jq '[.. | objects | has("package-hook")] | any' r.json)
    want=false
    [ "$bin" = "$HOOKS_BIN" ] && want=true
    [ "$read_fixture" = $want ] || fail "$bin read GT_SYSFS_ROOT's fixture: $read_fixture: $(jq -c .energy r.json)"
done
