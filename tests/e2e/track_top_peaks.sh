# SPDX-License-Identifier: MIT
# The top processes by peak RAM, ranked by each process's own high-water
# mark: 100 processes of 4 to 103 MiB, each living a few milliseconds
# between two 1-s samples, every one writing the VmHWM the kernel reports to
# it.  With taskstats, every exit record holds its peak, so the five largest
# of the truth are the report's five, in order, each within the kernel's
# counter batching; without it the figures are lower bounds.
. "$(dirname "$0")/_lib.sh"
ncpu=$(getconf _NPROCESSORS_ONLN)
batch=$((2 * ncpu > 32 ? 2 * ncpu : 32))
TOL=$((2 * ncpu * batch * $(getconf PAGESIZE)))

"$GT_BIN" --per-process --st=1 --ru=bytes -f json -- "$W/short_peaks" 100 4 truth.txt >out.txt 2>err.txt ||
    fail "tracking failed: $(cat err.txt)"
json_report out.txt >r.json
[ "$(wc -l <truth.txt)" = 100 ] || fail "the workload wrote $(wc -l <truth.txt) of 100 lines"
sort -k2,2nr truth.txt | head -5 >want.txt
jq -r '.top_processes.by_peak_ram[] | "\(.pid) \(.peak_rss)"' r.json >got.txt
if [ "$(jget r.json .peak_ram.largest_descendant_method)" = "lower bound (sampled)" ]; then
    [ "$(jget r.json .top_processes.peak_rss_method)" = "lower bound (sampled)" ] ||
        fail "sampled peaks labelled '$(jget r.json .top_processes.peak_rss_method)'"
    # No exit records: whatever is listed is never above its own truth.
    while read -r pid peak; do
        t=$(awk -v p="$pid" '$1 == p { print $2 * 1024 }' truth.txt)
        [ -z "$t" ] || within "$peak" 0 $((t + TOL)) "process $pid: a lower bound of its own $t bytes"
    done <got.txt
    skip_part "ranking by the true peak" "no taskstats here (needs CAP_NET_ADMIN)"
    exit 0
fi
[ "$(jget r.json .top_processes.peak_rss_method)" = "kernel high-water mark" ] ||
    fail "peaks labelled '$(jget r.json .top_processes.peak_rss_method)'"
paste -d' ' want.txt got.txt >pair.txt
[ "$(wc -l <pair.txt)" = 5 ] || fail "$(wc -l <got.txt) top processes: $(cat got.txt)"
while read -r wpid wkb gpid gpeak; do
    [ "$wpid" = "$gpid" ] || fail "ranked $(tr '\n' ',' <got.txt) for the truth $(tr '\n' ',' <want.txt)"
    within "$gpeak" $((wkb * 1024 - TOL)) $((wkb * 1024 + TOL)) "process $wpid's peak (its own VmHWM $wkb kB)"
done <pair.txt
echo "ok: $(tr '\n' ' ' <got.txt)"
