# SPDX-License-Identifier: MIT
# Security: -e runs no shell; a symbolic link planted where a tracking file
# goes is never followed; odd file names are data, not SQL; files get the
# user's umask.
. "$(dirname "$0")/_lib.sh"

# -e: no command substitution, no variables, no operators.
"$GT_BIN" -e 'touch $(echo pwned) `echo tick` $HOME;x' >/dev/null 2>&1
for f in pwned tick "$HOME;x"; do [ ! -e "$f" ] || fail "-e expanded something: '$f' exists"; done
for f in '$(echo' 'pwned)' '`echo' 'tick`' '$HOME;x'; do [ -e "$f" ] || fail "-e: literal word '$f' missing"; done
"$GT_BIN" -e 'true && touch and.marker' >/dev/null 2>&1
[ ! -e and.marker ] || fail "-e: '&&' was run by a shell"

# A planted link, to an existing file or dangling: refused without
# --overwrite (nothing runs, nothing written through it); with --overwrite
# the link itself is replaced and its target left alone.
for ext in csv sqlite; do
    echo secret >victim.$ext
    ln -s victim.$ext link.$ext
    ln -s missing.$ext dangling.$ext
    for f in link.$ext dangling.$ext; do
        rc=0; "$GT_BIN" --tf=$f -- touch ran.marker >/dev/null 2>err.txt || rc=$?
        [ $rc = 2 ] || fail "planted link $f: exit $rc, expected 2"
        [ ! -e ran.marker ] || fail "planted link $f: the command ran"
        [ -L $f ] || fail "planted link $f was replaced without --overwrite"
    done
    [ "$(cat victim.$ext)" = secret ] || fail "written through link.$ext"
    [ ! -e missing.$ext ] || fail "created through dangling.$ext"
    "$GT_BIN" --st=0.05 --tf=link.$ext --overwrite -- true >/dev/null 2>&1
    [ -f link.$ext ] && [ ! -L link.$ext ] || fail "--overwrite did not replace link.$ext"
    [ "$(cat victim.$ext)" = secret ] || fail "--overwrite wrote through link.$ext"
done

# A file name that looks like SQL is only a name.
name="x'); DROP TABLE data; --.sqlite"
"$GT_BIN" --st=0.05 --tf="$name" -- true >/dev/null 2>&1
[ "$(sqlite3 "$name" "select count(*) >= 2 from data")" = 1 ] || fail "odd SQLite file name"

# Files get 0666 less the umask, like any file the user creates.
for mask in 077 027 022; do
    want=$(printf '%o' $((0666 & ~0$mask)))
    rm -f u.csv u.sqlite r.txt
    (umask $mask; "$GT_BIN" --st=0.05 --tf=u.csv -o r.txt -- true >/dev/null 2>&1)
    (umask $mask; "$GT_BIN" --st=0.05 --tf=u.sqlite -- true >/dev/null 2>&1)
    for f in u.csv u.sqlite r.txt; do
        [ "$(stat -c %a $f)" = "$want" ] || fail "umask $mask: $f has mode $(stat -c %a $f), expected $want"
    done
done
