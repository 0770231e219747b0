# SPDX-License-Identifier: MIT
# gt-test: no-san: builds programs with each compiler against the gcc build's library; the header is what it checks
# The public header as its users compile it: tests/e2e/data/header_use.c,
# which uses every initializer macro and references every function the
# header declares, builds under -Wall -Wextra -Wpedantic -Werror as C99, C11
# and C17 (gcc, clang) and as C++11, C++14, C++17 and C++20 (g++, clang++),
# and once as C and once as C++ with GT_NO_DEPRECATED (the units' old names
# left out), links against the library and runs.  The functions the header
# declares are the library's exported ones, no more and no fewer.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/_lib.sh"
H=$ROOT/include/gpu_tracker.h
lib=$GT_BUILD/libgputracker.so

# Every function the header declares (GT_API ... name(), its name on the
# GT_API line), as a table of their addresses.
grep -oP 'GT_API[^(;]*?\b\Kgt_\w+(?=\s*\()' "$H" | sort >declared.txt
[ "$(wc -l <declared.txt)" -gt 40 ] || fail "only $(wc -l <declared.txt) functions found in the header"
nm -D --defined-only "$lib" | awk '$2 == "T" { print $3 }' | sort >exported.txt
diff declared.txt exported.txt >diff.txt || fail "declared (<) and exported (>) differ: $(cat diff.txt)"
{
    echo '/* Written by tests/e2e/header.sh from include/gpu_tracker.h. */'
    echo 'static void (*const gt_header_funcs[])(void) = {'
    sed 's/.*/    (void (*)(void))&,/' declared.txt
    echo '};'
} >header_funcs.h

# The error model of the header's conventions: each function with a status
# is in one of its two lists, once; those whose message is in err take a
# gt_error * as their last parameter, and no other takes one; no function
# gives a message any other way (no function returns one).
python3 - "$H" >errors.txt 2>&1 <<'PY' || fail "the header's error lists: $(cat errors.txt)"
import re
import sys
h = open(sys.argv[1]).read()
block = re.search(r'\n \*  - Errors, one model:(.*?)\n \*  - ', h, re.S).group(1)
kinds = ('err', 'none')
groups = block.split('\n *    - ')[1:]
assert len(groups) == len(kinds), f'{len(groups)} lists, not {len(kinds)}'
listed = {}
for kind, group in zip(kinds, groups):
    for line in group.split('\n'):
        if re.match(r' \*        gt_', line):
            for name in re.findall(r'gt_\w+', line):
                assert name not in listed, f'{name} listed twice'
                listed[name] = kind
bad = []
for ret, name, params in re.findall(r'GT_API\s+([^;(]*?)\b(gt_\w+)\s*\(([^)]*)\)\s*;', h, re.S):
    kind = listed.pop(name, None)
    if ret.split() != ['gt_status']:
        if kind:
            bad.append(f'{name} has no status but is listed under {kind}')
        continue
    last = params.split(',')[-1]
    if kind is None:
        bad.append(f'{name} is in no list')
    elif (kind == 'err') != ('gt_error *' in last) or params.count('gt_error') > (kind == 'err'):
        bad.append(f'{name}: listed under {kind}, takes {params!r}')
bad += [f'{name} is listed but not declared' for name in listed]
# One place for a message: no function hands one out of a handle.
bad += [f'{name} returns a message of its own' for name in
        re.findall(r'GT_API\s+const char \*(gt_\w+_error)\s*\(', h)]
assert not bad, '; '.join(bad)
PY

# build COMPILER STD LANG [FLAG]: compiles, links and runs the program,
# which must print the number of functions it referenced.
built=0
build() {
    local cc=$1 std=$2 lang=$3 exe=use-$1-$2${4:-}
    "$cc" -x "$lang" -std="$std" -Wall -Wextra -Wpedantic -Werror ${4:+"$4"} -I"$ROOT/include" -I. \
        "$ROOT/tests/e2e/data/header_use.c" -x none -o "$exe" -L"$GT_BUILD" -lgputracker \
        -Wl,-rpath,"$GT_BUILD" >"$exe.log" 2>&1 || fail "$cc -std=$std: $(head -n 20 "$exe.log")"
    rm -f marks.csv
    "./$exe" >"$exe.out" 2>&1 || fail "$cc -std=$std: the program failed: $(cat "$exe.out")"
    [ "$(cat "$exe.out")" = "$(wc -l <declared.txt)" ] ||
        fail "$cc -std=$std: $(cat "$exe.out") functions referenced, $(wc -l <declared.txt) declared"
    # The marks of the scoped blocks (with the cleanup attribute: all of
    # these compilers) and of the pair of calls: a start and a stop each.
    for b in 'header_use.c:scoped' scope 'by hand'; do
        [ "$(grep -c "[,/]$b,[01]," marks.csv)" = 2 ] || fail "$cc -std=$std: marks of '$b': $(cat marks.csv)"
    done
    built=$((built + 1))
}
missing=()
for cc in gcc clang; do
    command -v "$cc" >/dev/null || { missing+=("$cc"); continue; }
    for std in c99 c11 c17; do build "$cc" "$std" c; done
done
for cc in g++ clang++; do
    command -v "$cc" >/dev/null || { missing+=("$cc"); continue; }
    for std in c++11 c++14 c++17 c++20; do build "$cc" "$std" c++; done
done
# Without the deprecated names (GT_NO_DEPRECATED), in one C and one C++.
! command -v gcc >/dev/null || build gcc c11 c -DGT_NO_DEPRECATED
! command -v g++ >/dev/null || build g++ c++17 c++ -DGT_NO_DEPRECATED
[ "$built" -gt 0 ] || skip "no C or C++ compiler: ${missing[*]}"
[ ${#missing[@]} = 0 ] || echo "not installed, not built with: ${missing[*]}"
echo "built and ran $built programs"
