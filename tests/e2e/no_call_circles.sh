#!/bin/bash
# SPDX-License-Identifier: MIT
# gt-test: no-san: reads the library's object files, runs no C code
# No two files of the library call each other round a circle: an edge runs
# from the file that defines a global symbol to each file that uses it, read
# from the object files with nm, and tsort finds no loop.  The GPU backends
# and gpu.c still call each other (until a vendor table stands between
# them), so edges inside src/lib/gpu/ are left out.
. "$(dirname "$0")/_lib.sh"
command -v nm >/dev/null && command -v tsort >/dev/null || { echo "skipped: no nm or tsort"; exit 77; }
OBJ="$GT_BUILD/obj/src/lib"
[ -d "$OBJ" ] || fail "no object files under $OBJ"
find "$OBJ" -name '*.o' | sort >objects
[ "$(wc -l <objects)" -gt 50 ] || fail "only $(wc -l <objects) object files under $OBJ"
while read -r o; do nm --defined-only -g "$o" | awk -v o="$o" 'NF == 3 { print $3, o }'; done <objects | sort >defined
while read -r o; do nm -u "$o" | awk -v o="$o" '{ print $NF, o }'; done <objects | sort >used
# definer user, one line per edge between two files
join defined used | awk '$2 != $3 { print $2, $3 }' | sort -u >edges
[ -s edges ] || fail "no calls between files read"
grep -v "/gpu/.* .*/gpu/" edges >kept || true
tsort kept >/dev/null 2>loops || fail "files that call each other round a circle: $(sed 's|.*/obj/||' loops | tr '\n' ' ')"
echo ok
