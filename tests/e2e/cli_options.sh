# SPDX-License-Identifier: MIT
# Options are written once, in their command's option table, and the rest
# follows: the man page's option lists must be what tools/gen_man writes
# from the tables (`make man`), and, as a check of the generator itself,
# the track command's OPTIONS hold one paragraph per option that --help
# lists, tagged in the page's roff (and none for an option that is gone).
# The documentation's table of options has a row for each option, and each
# --tconfig key is in the page and the documentation.
# tests/unit/test_cli_options.c checks the tables against --help and
# --tconfig.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/_lib.sh"
MAN=$ROOT/docs/gpu-tracker.1
"$GT_BIN" --help >help.txt

GEN_MAN=$GT_BUILD/tools/gen_man
[ -x "$GEN_MAN" ] || fail "no $GEN_MAN: build it with make test-build"
"$GEN_MAN" "$MAN" >generated.1 2>gen_err.txt || fail "gen_man failed: $(cat gen_err.txt)"
if ! diff -u "$MAN" generated.1 >man.diff; then
    cat man.diff >&2
    fail "docs/gpu-tracker.1 is not what the option tables give (the diff above): run make man"
fi

# Each option line of --help: 4 spaces, then the option (with its short
# name first if it has one), e.g. "-o --output=<output>" or "--quiet".
sed -n '/^Options:$/,/^$/p' help.txt | grep -E '^    -' |
    awk '{ print ($1 ~ /^-[a-zA-Z]$/ && $2 ~ /^--/) ? $1 " " $2 : $1 }' >options.txt
[ "$(wc -l <options.txt)" -ge 20 ] || fail "only $(wc -l <options.txt) options in --help"

# The roff the man page gives an option: names in bold with '-' escaped,
# the value's name in italics.
roff() {
    local short="" long=$1 arg=""
    case $1 in -?\ *) short=${1%% *} long=${1#* } ;; esac
    case $long in *=\<*\>) arg=${long#*=<} arg=${arg%>} long=${long%%=*}= ;; esac
    long=$(printf '%s' "$long" | sed 's/-/\\-/g')
    if [ -n "$short" ]; then
        printf '.BR \\%s ", " %s%s\n' "$short" "$long" "${arg:+\\fI$arg\\fR}"
    elif [ -n "$arg" ]; then
        printf '.BI %s %s\n' "$long" "$arg"
    else
        printf '.B %s\n' "$long"
    fi
}
while read -r opt; do roff "$opt"; done <options.txt | sort >want.txt
# The first line of each paragraph (.TP) of OPTIONS.
sed -n '/^\.SH OPTIONS$/,/^\.SH /p' "$MAN" | awk 'tp { print; tp = 0 } /^\.TP$/ { tp = 1 }' | sort >have.txt
missing=$(comm -23 want.txt have.txt)
[ -z "$missing" ] || fail "the man page's OPTIONS lack a paragraph (.TP) starting with: $missing"
extra=$(comm -13 want.txt have.txt)
[ -z "$extra" ] || fail "the man page's OPTIONS document what --help does not list: $extra"

# A table of options in the documentation has a row whose first cell names
# each option (`--st=...`, or `-e`, `--execute=...`), and each --tconfig key
# is in the documentation.
cat "$ROOT/README.md" "$ROOT"/docs/*.md >docs.txt 2>/dev/null || true
grep '^|' docs.txt | awk -F'|' '{ print $2 }' >first_cells.txt
while read -r opt; do
    long=${opt##* }
    long=${long%%=*}
    grep -qF -- "\`$long" first_cells.txt || fail "'$long' is in --help but has no row in a table of options (docs/*.md)"
done <options.txt

# The --tconfig keys, as its help lists them.
tr '\n' ' ' <help.txt | sed -n 's/.*keyword arguments (\([^)]*\)).*/\1/p' | tr -s ' ,' '\n\n' | sed '/^$/d' >keys.txt
[ "$(wc -l <keys.txt)" -ge 10 ] || fail "only $(wc -l <keys.txt) --tconfig keys in --help"
sed -n '/^\.SH OPTIONS$/,/^\.SH /p' "$MAN" >options.roff
while read -r key; do
    grep -qE "(^|[ (])$key([ ,)]|\$)" options.roff || fail "--tconfig key '$key' is not in the man page"
    grep -qF -- "\`$key\`" docs.txt || fail "--tconfig key '$key' is in no documentation page"
done <keys.txt

# An unknown key is refused with the same list.
echo '{"no_such_key": 1}' >bad.json
rc=0; "$GT_BIN" --tconfig=bad.json -- true >out.txt 2>err.txt || rc=$?
[ $rc = 2 ] || fail "unknown key: exit $rc"
grep -qF "valid keys: $(paste -sd, keys.txt | sed 's/,/, /g')" err.txt || fail "unknown key: $(cat err.txt)"
