# SPDX-License-Identifier: MIT
# gt-test: serial: headless Chromium loads the machine; the legend needs samples of a 1 s hold
# gpu-tracker plot: a real run's tracking file with a sub-tracking file
# drawn as HTML and SVG, rendered in headless Chromium, which must load both
# without errors and draw every series with a visible line.
. "$(dirname "$0")/_lib.sh"
command -v chromium >/dev/null || fail "chromium is not installed (scripts/setup-deps.sh)"
# The tracked run: 64 MiB held for 1 s at least (until 21 more rows are in
# the file: 20 intervals of 0.05 s or more, however slowly the machine
# samples), then 0.4 s of CPU on one thread.
"$GT_BIN" --st=0.05 --disable-logs --tf=run.csv -o /dev/null -- sh -c "'$W/touch_mem' 64 rows=21@run.csv; '$W/burn' 1 400" >/dev/null
"$GT_BIN" --st=0.05 --disable-logs --tf=run.sqlite -o /dev/null -- "$W/touch_mem" 16 0.5 >/dev/null
# The timestamp column by name: energy columns, where measured, follow it.
ts_col() { awk -F, -v want="$1" 'NR == 3 { for (i = 1; i <= NF; i++) if ($i == "timestamp") c = i } NR == want || (want == "last" && NR > 3) { v = $c } END { print v }' run.csv; }
t0=$(ts_col 4)
t1=$(ts_col last)
[ -n "$t0" ] && [ -n "$t1" ] || fail "no timestamps in run.csv"
{
    echo "process_id,code_block_name,position,timestamp"
    awk -v a="$t0" -v b="$t1" 'BEGIN {
        printf "41,hold <64 MiB> & wait,0,%.6f\n41,hold <64 MiB> & wait,1,%.6f\n", a + 0.05, a + 1
        printf "41,burn,0,%.6f\n41,burn,1,%.6f\n", a + 1.02, b - 0.02 }'
} >marks.csv

"$GT_BIN" plot --tf=run.csv --stf=marks.csv -o report.html
"$GT_BIN" plot --tf=run.csv --stf=marks.csv -o report.svg
"$GT_BIN" plot --tf=run.sqlite --output report2.html
# Self-contained: no script, nothing to fetch (the SVG namespace is a name).
grep -qi '<script\|<link\|<img\|@import\|url(' report.html && fail "report.html refers to outside resources"
grep -o 'https\?://[^"]*' report.html report.svg | grep -v 'http://www.w3.org/2000/svg$' && fail "URLs in the report"
# Peaks at a glance: the legend gives the largest values.
# The workloads run under sh: their memory is the descendants'.
# The chart's unit follows its largest series, the system's RAM, which on a
# busy machine may pass 1000 MB: the figure is read with its unit.
mb=$(sed -n 's/.*>descendants (max \([0-9.]*\) \([kMG]B\))<.*/\1 \2/p' report.html | head -n 1 |
    awk '{ print $1 * ($2 == "GB" ? 1000 : $2 == "kB" ? 0.001 : 1) }')
within "${mb:-0}" 67.1 75 "descendants' RAM max in the legend (MB)"
grep -q 'hold &lt;64 MiB&gt; &amp; wait: 1 call' report.html || fail "code block span missing"
grep -q '>no GPU tracked<' report.html || fail "GPU charts should say no GPU is tracked"

browse() { # chromium's dump of the page after load, its log on chromium.log
    timeout 120 chromium --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions \
        --enable-logging=stderr --v=0 --virtual-time-budget=3000 --dump-dom "file://$TMP/$1" 2>>chromium.log
}
# A copy with a checking script: every series path has a length and spans
# the plot's width; every span is drawn.  Prints one "chart/series=drawn"
# (or "=empty") line per series and one "span/block=..." per span.
drawn() {
    sed 's|</body>|<script>const r=[];document.querySelectorAll("path.series").forEach(p=>{const b=p.getBBox();r.push(p.closest("g.chart").dataset.chart+"/"+p.dataset.series+"="+(p.getTotalLength()>0\&\&b.width>600?"drawn":"empty"))});document.querySelectorAll("rect.span").forEach(s=>r.push("span/"+s.dataset.block+"="+(s.getBBox().width>=1?"drawn":"empty")));document.body.dataset.check=r.join(";");</script></body>|' \
        "$1" >check.html
    browse check.html >dom.txt
    sed -n 's/.*data-check="\([^"]*\)".*/\1/p' dom.txt | tr ';' '\n'
}
drawn report.html >drawn.txt
[ -s drawn.txt ] || fail "the page did not run its check: $(tail -n 5 chromium.log)"
for s in main descendants combined system; do
    grep -qx "RAM (total RSS)/$s=drawn" drawn.txt || fail "RAM $s not drawn: $(cat drawn.txt)"
    grep -qx "CPU utilization/$s=drawn" drawn.txt || fail "CPU $s not drawn: $(cat drawn.txt)"
done
# gpu-tracker's own quantities: a chart per plot group of the metric table.
for s in "Disk read/main" "Disk read/combined" "Disk written/descendants" "Disk I/O rate/read" "Disk I/O rate/written"; do
    grep -qx "$s=drawn" drawn.txt || fail "$s not drawn: $(cat drawn.txt)"
done
grep -qx "span/burn=drawn" drawn.txt || fail "span not drawn: $(cat drawn.txt)"
[ "$(grep -c '=drawn$' drawn.txt)" = 18 ] || fail "expected 16 series and 2 spans: $(cat drawn.txt)"
grep -q '=empty$' drawn.txt && fail "empty series: $(cat drawn.txt)"
# The Python package's files of a run with a GPU: every GPU series too, and
# the code blocks of several processes.
"$GT_BIN" plot --tf="$GT_REF/sub-tracking/tracking.sqlite" --stf="$GT_REF/sub-tracking/sub-tracking.sqlite" -o ref.html
drawn ref.html >refdrawn.txt
for s in main descendants combined system; do
    grep -qx "GPU RAM/$s=drawn" refdrawn.txt || fail "GPU RAM $s not drawn: $(cat refdrawn.txt)"
done
grep -qx "GPU utilization/sum=drawn" refdrawn.txt || fail "GPU utilization not drawn: $(cat refdrawn.txt)"
for b in X Y tmp.py:38 tmp.py:9; do
    grep -qx "span/$b=drawn" refdrawn.txt || fail "code block $b not drawn: $(cat refdrawn.txt)"
done
[ "$(grep -c '^[^s].*=drawn$' refdrawn.txt)" = 13 ] || fail "expected 13 series: $(cat refdrawn.txt)"
grep -q '=empty$' refdrawn.txt && fail "empty series: $(cat refdrawn.txt)"
grep -i 'CONSOLE\|Uncaught' chromium.log && fail "errors while loading the page"
# The standalone SVG parses as XML (a parse error shows as parsererror).
browse report.svg >svgdom.txt
grep -q '<svg' svgdom.txt || fail "report.svg not loaded"
grep -qi 'parsererror\|error on line' svgdom.txt && fail "report.svg is not well-formed"
# A screenshot renders.
timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1160,1300 \
    --screenshot="$TMP/shot.png" "file://$TMP/report2.html" 2>>chromium.log >/dev/null
[ "$(stat -c %s shot.png)" -gt 20000 ] || fail "screenshot too small"
# Marks of two nodes (the same process ID on each): one node's plot has
# that node's blocks only, picked with --host; an unknown host is refused
# with the file's hosts named, and so is a plot of both at once.
{
    echo "process_id,code_block_name,position,timestamp,host"
    awk -v a="$t0" -v b="$t1" 'BEGIN {
        printf "41,on-n1,0,%.6f,n1\n41,on-n1,1,%.6f,n1\n", a + 0.05, a + 1
        printf "41,on-n2,0,%.6f,n2\n41,on-n2,1,%.6f,n2\n", a + 1.02, b - 0.02 }'
} >hosts.csv
"$GT_BIN" plot --tf=run.csv --stf=hosts.csv --host=n1 -o n1.html
grep -q 'on-n1: 1 call' n1.html || fail "n1's block missing from its plot"
grep -q 'on-n2' n1.html && fail "n2's block in n1's plot"
set +e
"$GT_BIN" plot --tf=run.csv --stf=hosts.csv --host=n3 -o n3.html 2>err.txt; rc=$?
[ $rc = 2 ] && grep -q "no marks of host 'n3' (its hosts: 'n1', 'n2')" err.txt || fail "unknown host: $rc $(cat err.txt)"
"$GT_BIN" plot --tf=run.csv --stf=hosts.csv -o both.html 2>err.txt; rc=$?
[ $rc = 2 ] && grep -q "several hosts" err.txt || fail "two hosts at once: $rc $(cat err.txt)"
"$GT_BIN" plot --tf=run.csv --host=n1 -o x.html 2>err.txt; rc=$?
[ $rc = 2 ] && grep -q "needs --stf" err.txt || fail "--host without --stf: $rc $(cat err.txt)"
set -e
[ ! -e n3.html ] && [ ! -e both.html ] || fail "a plot was written for a refused host"

# Errors: a missing file, a wrong extension, missing options.
set +e
"$GT_BIN" plot --tf=missing.csv -o x.html 2>err.txt; rc=$?
[ $rc = 1 ] && grep -q "missing.csv" err.txt || fail "missing tracking file: $rc $(cat err.txt)"
"$GT_BIN" plot --tf=run.csv -o x.png 2>err.txt; rc=$?
[ $rc = 2 ] && grep -q ".html or .svg" err.txt || fail "wrong extension: $rc $(cat err.txt)"
"$GT_BIN" plot --tf=run.csv 2>err.txt; rc=$?
[ $rc = 2 ] && grep -q "needs --tf" err.txt || fail "no output: $rc $(cat err.txt)"
set -e
[ ! -e x.html ] && [ ! -e x.png ] || fail "a plot was written after an error"
ls | grep -q '\.tmp\.' && fail "temporary file left behind"
exit 0
