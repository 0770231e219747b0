# SPDX-License-Identifier: MIT
# The live status line: drawn on the terminal's bottom row while the command
# runs (read from a tmux pane), kept apart from the command's own output,
# cleared before the report; absent with --quiet or when stderr is no tty.
. "$(dirname "$0")/_lib.sh"
command -v tmux >/dev/null || fail "tmux is not installed (scripts/setup-deps.sh)"
sock="$TMP/tmux.sock"
t() { tmux -S "$sock" "$@"; }
# A tracker whose terminal goes away (kill-server) as it exits can hang in
# a sanitizer's exit-time leak check, spinning a core for the rest of the
# run: each pane runs this test's own copy, which is killed at the end.
cp "$GT_BIN" "$TMP/gpu-tracker"
trap 't kill-server 2>/dev/null || true; pkill -KILL -f -- "$TMP/gpu-tracker" || true; cleanup' EXIT
# The command prints numbered lines while it holds 48 MiB, until the test
# has seen what it waits for and creates NAME.release.
cat >job.sh <<SH
#!/bin/sh
for i in 1 2 3 4 5 6; do echo "job line \$i"; sleep 0.5; done &
exec "$W/touch_mem" 48 "file=\$1.release"
SH
chmod +x job.sh
run_in_tmux() { # name, gpu-tracker options...
    local name=$1
    shift
    t new-session -d -s "$name" -x 120 -y 20 \
        "$TMP/gpu-tracker --st=0.2 --disable-logs -o $name.report $* -- ./job.sh $name; echo exit=\$? >$name.done; sleep 30"
}
# bottom_row NAME: the pane's bottom row, in $last.
bottom_row() { t capture-pane -p -t "$1" >screen.txt && last=$(tail -n 1 screen.txt); }
status_shown() { bottom_row live && case $last in "gpu-tracker "*"RAM "*"MB"*) ;; *) false ;; esac; }
# ... with the job's memory: at least its 48 MiB (50.3 MB).
memory_shown() {
    bottom_row live || return 1
    mb=$(printf '%s\n' "$last" | sed -n 's/.*| RAM \([0-9.]*\) MB.*/\1/p')
    [ -n "$mb" ] && awk -v m="$mb" 'BEGIN { exit !(m >= 50) }'
}
run_in_tmux live
wait_for status_shown
# Wait for the memory to show, on the same bottom row.
wait_for memory_shown
within "${mb:-0}" 50 70 "combined RAM on the status line (MB)"
printf '%s\n' "$last" | grep -Eq '^gpu-tracker [0-9]+:[0-9]{2}:[0-9]{2} \| RAM [0-9.]+ MB \(peak [0-9.]+ MB\) \| GPU RAM n/a \| CPU [0-9]+% \| GPU n/a' ||
    fail "status line layout: $last"
# The command's lines scroll above the status row, never into it.
touch live.release
wait_for test -e live.done
t capture-pane -p -t live >after.txt
grep -q "^job line 1$" after.txt || fail "command output missing on screen: $(cat after.txt)"
grep -q "gpu-tracker .*| RAM" after.txt && fail "status line left on screen: $(cat after.txt)"
grep -q "job line.*gpu-tracker\|gpu-tracker.*job line" after.txt && fail "status mixed into output"
grep -q "^Resource tracking complete" after.txt || fail "no completion line: $(cat after.txt)"
# The -o report carries no trace of the line.
grep -q "Max RAM" live.report || fail "no report"
grep -q $'\033' live.report && fail "escape sequences in the report"
[ "$(cat live.done)" = exit=0 ] || fail "exit status: $(cat live.done)"

# --quiet: no line at all, once five samples were taken (the line shows
# from the first).
run_in_tmux quiet --quiet --tf=quiet.csv
wait_for lines_at_least quiet.csv 8
t capture-pane -p -t quiet >q.txt
touch quiet.release
grep -q "gpu-tracker .*| RAM" q.txt && fail "status line despite --quiet"
# stderr not a terminal: no line and no escape sequences.
touch plain.release
"$GT_BIN" --st=0.2 --disable-logs -- ./job.sh plain >plain.out 2>plain.err
grep -q $'\033' plain.err && fail "escape sequences on a non-terminal stderr"
[ ! -s plain.err ] || fail "unexpected stderr: $(cat plain.err)"
exit 0
