# SPDX-License-Identifier: MIT
# gt-test: no-san: reads Markdown files, runs no C code
# The documentation holds together: README.md stays short (under 12 KiB),
# and every relative Markdown link in README.md, docs/*.md and
# bench/README.md names a file that exists and, with a '#anchor' into a
# Markdown page, a heading of that page.  Anchors follow GitHub's rule:
# the heading's text in lowercase, ASCII punctuation other than '-' and '_'
# dropped, each space made a '-', and '-1', '-2', ... added to repeats.
# Non-ASCII characters are kept as they are (GitHub drops non-ASCII
# punctuation too; no heading has any).
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/_lib.sh"

size=$(wc -c <"$ROOT/README.md")
[ "$size" -lt 12288 ] || fail "README.md is $size bytes: 12 KiB or more; move sections into docs/"

# links FILE: each link target of FILE on a line of its own, outside fenced
# code blocks and inline code spans.
links() {
    awk '
        /^[ \t]*(```|~~~)/ { fenced = !fenced; next }
        fenced { next }
        {
            line = $0
            gsub(/`[^`]*`/, "", line)
            while (match(line, /\]\([^)]*\)/)) {
                target = substr(line, RSTART + 2, RLENGTH - 3)
                line = substr(line, RSTART + RLENGTH)
                sub(/^[ \t]*</, "", target)
                sub(/[ \t].*$/, "", target) # a title after the target
                sub(/>$/, "", target)
                print target
            }
        }' "$1"
}

# anchors FILE: the anchor of each heading of FILE, one a line.
anchors() {
    awk '
        /^[ \t]*(```|~~~)/ { fenced = !fenced; next }
        fenced || !/^#+[ \t]/ { next }
        {
            h = $0
            sub(/^#+[ \t]+/, "", h)
            sub(/[ \t]+#*[ \t]*$/, "", h)
            h = tolower(h)
            gsub(/[!-,.\/:-@[-^`{-~]/, "", h)
            gsub(/ /, "-", h)
            a = h
            if (h in seen) a = h "-" seen[h]
            seen[h]++
            print a
        }' "$1"
}

pages=0
links_checked=0
anchors_checked=0
broken=0
for page in "$ROOT/README.md" "$ROOT"/docs/*.md "$ROOT/bench/README.md"; do
    [ -f "$page" ] || fail "no page $page"
    pages=$((pages + 1))
    rel=${page#"$ROOT"/}
    dir=$(dirname "$page")
    links "$page" >links.txt
    while read -r target; do
        case "$target" in
        '' | *://* | mailto:*) continue ;;
        esac
        path=${target%%#*}
        anchor=
        case "$target" in *'#'*) anchor=${target#*#} ;; esac
        if [ -z "$path" ]; then
            dest=$page
        else
            dest=$dir/$path
        fi
        links_checked=$((links_checked + 1))
        if [ ! -e "$dest" ]; then
            echo "$rel: link '$target': no file '$path'" >&2
            broken=$((broken + 1))
            continue
        fi
        [ -n "$anchor" ] || continue
        case "$dest" in
        *.md) ;;
        *) continue ;;
        esac
        anchors_checked=$((anchors_checked + 1))
        if ! anchors "$dest" | grep -qxF -- "$anchor"; then
            echo "$rel: link '$target': no heading with anchor '#$anchor' in '${dest#"$ROOT"/}'" >&2
            broken=$((broken + 1))
        fi
    done <links.txt
done
[ "$broken" = 0 ] || fail "$broken broken links in the documentation"
[ "$pages" -ge 12 ] || fail "only $pages Markdown pages found"
[ "$links_checked" -ge 20 ] || fail "only $links_checked relative links found"
[ "$anchors_checked" -ge 5 ] || fail "only $anchors_checked anchors checked"
echo "README.md $size bytes; $links_checked relative links in $pages pages, $anchors_checked anchors: all resolve"
