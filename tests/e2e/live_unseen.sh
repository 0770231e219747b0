# SPDX-License-Identifier: MIT
# Memory the tracker may not read (root's process, tracked by nobody) is
# unavailable on the live status line and NaN in the metrics endpoint,
# never 0, as in the reports (track_unseen.sh).
. "$(dirname "$0")/_lib.sh"
[ "$(id -u)" = 0 ] || { echo "skipped: needs root to track a process as another user"; exit 0; }
command -v tmux >/dev/null || fail "tmux is not installed (scripts/setup-deps.sh)"
sock="$TMP/tmux.sock"
t() { tmux -S "$sock" "$@"; }
pids=()
stop_all() {
    t kill-server 2>/dev/null || true
    # A tracker whose terminal went away as it exited can hang in a
    # sanitizer's exit-time leak check, spinning a core for the rest of the
    # run.
    pkill -KILL -f -- "$TMP/gpu-tracker" || true
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    wait 2>/dev/null || true
    cleanup
}
trap stop_all EXIT
chmod 755 "$TMP"
mkdir -m 777 "$TMP/nobody" # where nobody may write its report
cp "$GT_BIN" "$TMP/gpu-tracker"
"$W/touch_mem" 20 file=never & # until stop_all ends it
pid=$!
pids+=("$pid")
as_nobody="setpriv --reuid=65534 --regid=65534 --clear-groups --"

# Metrics: main and combined RAM are NaN; descendants (none, readable) 0.
: >err.txt # polled below, maybe before the background job has opened it
$as_nobody "$TMP/gpu-tracker" --attach=$pid --st=0.05 --disable-logs --metrics=127.0.0.1:0 \
    -o "$TMP/nobody/report.txt" >out.txt 2>err.txt &
gt=$!
pids+=("$gt")
wait_metrics_address
sampled() { curl -sf -o body.txt "http://$addr/metrics" && grep -q '^gpu_tracker_ram_bytes{set="main"}' body.txt; }
wait_for sampled
ram() { awk -v k="gpu_tracker_ram_bytes{set=\"$1\"}" '$1 == k { print $2 }' body.txt; }
[ "$(ram main)" = NaN ] || fail "main RAM: '$(ram main)', expected NaN"
[ "$(ram combined)" = NaN ] || fail "combined RAM: '$(ram combined)', expected NaN"
[ "$(ram descendants)" = 0 ] || fail "descendants RAM: '$(ram descendants)', expected 0"
awk -v s="$(ram system)" 'BEGIN { exit !(s > 0) }' || fail "system RAM: '$(ram system)'"
promtool check metrics <body.txt || fail "promtool rejects the exposition"
kill -TERM "$gt"
wait "$gt" || true

# The live status line: RAM and its peak unavailable.
t new-session -d -s live -x 120 -y 20 \
    "$as_nobody $TMP/gpu-tracker --attach=$pid --st=0.1 --disable-logs -o $TMP/nobody/live.report; sleep 30"
line_shown() {
    t capture-pane -p -t live >screen.txt
    seen=$(tail -n 1 screen.txt)
    case $seen in
    "gpu-tracker "*"| RAM - "*) false ;; # before the first sample
    "gpu-tracker "*"| RAM "*"| CPU "*) ;;
    *) false ;;
    esac
}
wait_for line_shown
printf '%s\n' "$seen" | grep -q '| RAM unavailable (peak unavailable) |' || fail "status line: $seen"
