# SPDX-License-Identifier: MIT
# gt-test: no-san: reads source files, runs no C code
# The LICENSE is at the root, and every source file (C, headers, shell,
# Python, the Makefile, scripts and benchmarks) names it with an
# SPDX-License-Identifier line: the first line, or the second after a '#!'.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/_lib.sh"
grep -q '^MIT License$' "$ROOT/LICENSE" || fail "LICENSE is not the MIT License"
command -v git >/dev/null && git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
    skip "not a git checkout: no list of the sources"
git -C "$ROOT" ls-files --cached --others --exclude-standard |
    grep -vE '^tests/(fixtures|fuzz/(corpus|regress))/' |
    grep -E '\.(c|h|sh|py)$|^Makefile$|^scripts/|^bench/[^.]*$|^\.ci/run$|^python/pyproject\.toml$|\.1$' >sources.txt
[ "$(wc -l <sources.txt)" -gt 200 ] || fail "only $(wc -l <sources.txt) sources found"
missing=0
while read -r f; do
    [ -f "$ROOT/$f" ] || continue # deleted in the work tree
    if ! head -n 2 "$ROOT/$f" | grep -qE '^(/\* |# |\.\\" )SPDX-License-Identifier: MIT( \*/)?$'; then
        echo "no SPDX-License-Identifier line: $f" >&2
        missing=$((missing + 1))
    fi
done <sources.txt
[ "$missing" = 0 ] || fail "$missing source files lack an SPDX-License-Identifier line"
