# SPDX-License-Identifier: MIT
# docs/gpu-tracker.1 documents every option that `gpu-tracker --help` and each
# subcommand's --help print (so the two cannot drift apart), carries the
# version of --version, and renders without a warning.
MAN=$(cd "$(dirname "$0")/../.." && pwd)/docs/gpu-tracker.1
. "$(dirname "$0")/_lib.sh"
[ -f "$MAN" ] || fail "no man page at $MAN"
# The page's text with roff's escapes for '-' and fonts undone.
sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$MAN" >page.txt

checked=0
for cmd in "" "sub-track combine" "sub-track analyze" "sub-track compare" plot merge; do
    # shellcheck disable=SC2086
    "$GT_BIN" $cmd --help >help.txt || fail "gpu-tracker $cmd --help failed"
    # Options as the help lists them: --long[=...] and -x, at a line's start
    # or after a space, '[' or '|'.
    grep -oE '(^|[][ |])--?[a-zA-Z][a-zA-Z-]*' help.txt | sed 's/^[][ |]*//' | sort -u >opts.txt
    [ -s opts.txt ] || fail "no options found in gpu-tracker $cmd --help"
    while read -r opt; do
        grep -qE -- "(^|[^a-zA-Z-])$opt([^a-zA-Z-]|\$)" page.txt ||
            fail "'$opt' of gpu-tracker $cmd --help is not in the man page"
        checked=$((checked + 1))
    done <opts.txt
    # Each subcommand has its own section.
    [ -z "$cmd" ] || grep -qE "^\.SS \"?$cmd\"?\$" "$MAN" || fail "no section for $cmd"
done
[ "$checked" -ge 30 ] || fail "only $checked options checked"

version=$("$GT_BIN" --version | sed 's/^gpu-tracker //')
grep -q "^\.TH GPU-TRACKER 1 .* \"gpu-tracker $version\"" "$MAN" || fail "the .TH line does not name version $version"

command -v groff >/dev/null || skip "groff is not installed: the page's options were checked, its rendering not"
LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$MAN" 2>warn.txt || fail "groff failed: $(cat warn.txt)"
[ ! -s warn.txt ] || fail "groff warns: $(cat warn.txt)"
LC_ALL=C.UTF-8 groff -man -Tutf8 -P-cbu "$MAN" 2>/dev/null | grep -q '^EXIT STATUS$' || fail "rendered page lacks EXIT STATUS"
