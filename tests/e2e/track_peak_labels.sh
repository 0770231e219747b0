# SPDX-License-Identifier: MIT
# What each memory figure is, said beside it: Max RAM (the Python package's
# section, whose layout stays its own) is the largest at one sample, a lower
# bound that a 1-s sample misses a short peak by; the Peak RAM section says
# so, and a descendant still running when tracking stopped has a peak exact
# only up to then, whatever the logging.
. "$(dirname "$0")/_lib.sh"
hwm_of() { awk '/^VmHWM:/ { print $2 }' "$1"; }

# 1. A descendant of 200 MiB for 0.3 s between two 1-s samples, writing its
# own VmHWM at its end; the event backend off, which would make the totals
# exact (track_events.sh).
"$GT_BIN" --events=off --ru=bytes -f json -- sh -c \
    'python3 -c "x = b\"a\" * 200000000; open(\"py.txt\", \"w\").write(open(\"/proc/self/status\").read())"' \
    >out.txt 2>err.txt
json_report out.txt >r.json
truth=$(($(hwm_of py.txt) * 1024))
desc=$(jget r.json .max_ram.descendants.total_rss)
within "$desc" 0 "$truth" "Max RAM of the descendants, a lower bound of python's own $truth bytes"
method=$(jget r.json .max_ram_method.descendants)
case "$method" in
*"lower bound"*) ;;
*) fail "Max RAM is not said to be a lower bound: $(jq -c .max_ram_method r.json)" ;;
esac
# The Python package's Max RAM section keeps its keys.
[ "$(jq -c '.max_ram | keys' r.json)" = '["combined","descendants","main","system","system_capacity","unit"]' ] ||
    fail "Max RAM keys: $(jq -c '.max_ram | keys' r.json)"
"$GT_BIN" --events=off --ru=bytes -- sh -c 'exit 0' >text.txt 2>/dev/null
grep -A3 "^Max RAM method:" text.txt | grep -q "^   Combined: lower bound (sampled)" ||
    fail "text: $(grep -A4 -i "max ram method" text.txt)"

# 2. A descendant left running when the command exits, under --disable-logs
# (no warning that it was left): its peak is exact only up to the end of
# tracking, which its label says; without taskstats it is a lower bound.
"$GT_BIN" --disable-logs --ru=bytes -f json -- sh -c \
    "$W/touch_mem 20 30 & echo \$! >left.pid; sleep 0.5" >out.txt 2>err.txt
left=$(cat left.pid)
kill "$left" 2>/dev/null || true
json_report out.txt >r.json
m=$(jget r.json .peak_ram.largest_descendant_method)
case "$m" in
"exact up to the end of tracking (descendants still running)" | "lower bound (sampled)") ;;
*) fail "a descendant still running at the end: method '$m'" ;;
esac
[ "$(id -u)" != 0 ] || [ "$m" != "lower bound (sampled)" ] || skip_part "exact label" "no taskstats here"
echo "ok: Max RAM $desc of $truth bytes ($method); left running: $m"
