# SPDX-License-Identifier: MIT
# Peak RAM: main's own high-water mark, the largest descendant's exact at its
# exit, each checked against the VmHWM that the process itself (or a child
# reading its /proc/PID/status) reports in the same run; and, without
# taskstats, figures that are lower bounds and say so.
. "$(dirname "$0")/_lib.sh"
use_hooks # GT_PEAKS

# The kernel keeps resident-memory counters per CPU and folds them in
# batches of max(32, 2 * CPUs) pages, so two readings of one high-water mark
# (VmHWM, taskstats' record) may differ by up to that much per CPU each way.
ncpu=$(getconf _NPROCESSORS_ONLN)
batch=$((2 * ncpu > 32 ? 2 * ncpu : 32))
TOL=$((2 * ncpu * batch * $(getconf PAGESIZE)))

# near REPORTED_BYTES TRUTH_KIB WHAT: |reported - truth| <= TOL.
near() {
    local t=$(($2 * 1024))
    within "$1" $((t - TOL)) $((t + TOL)) "$3 (truth $t bytes, tolerance $TOL)"
}
# not_above REPORTED_BYTES TRUTH_KIB WHAT: a lower bound is never above.
not_above() {
    within "$1" 0 $(($2 * 1024 + TOL)) "$3 must not exceed the truth $(($2 * 1024))"
}
hwm_of() { awk '/^VmHWM:/ { print $2 }' "$1"; }

if [ "$(id -u)" = 0 ]; then
    # sh -> python: main is sh, whose own peak a child reads at its end;
    # python writes its own.  wait4's ru_maxrss of sh would be python's.
    "$GT_BIN" --st=0.05 --ru=bytes -f json -- sh -c \
        'python3 -c "x = b\"a\" * 200000000; open(\"py.txt\", \"w\").write(open(\"/proc/self/status\").read())"
         cat /proc/$$/status >sh.txt; sleep 0.2' >out.txt
    json_report out.txt >r.json
    near "$(jget r.json .peak_ram.main)" "$(hwm_of sh.txt)" "sh's own peak"
    near "$(jget r.json .peak_ram.largest_descendant)" "$(hwm_of py.txt)" "python's peak"
    [ "$(jget r.json .peak_ram.main_method)" = exact ] || fail "main method: $(jq -c .peak_ram r.json)"
    [ "$(jget r.json .peak_ram.largest_descendant_method)" = exact ] || fail "descendant method"

    # A descendant that grows by 100 MiB in its last 5 ms, sampled every
    # 0.1 s: only its exit record holds that peak.
    "$GT_BIN" --st=0.1 --ru=bytes -f text -- sh -c \
        "$W/grow_exit 100 250 5 ge.txt; cat /proc/\$\$/status >sh.txt" >out.txt
    grep -qx '   Largest descendant method: exact' out.txt || fail "text method: $(grep method out.txt)"
    got=$(awk '/^Peak RAM/ { p = 1 } p && /^   Largest descendant:/ { print $3 }' out.txt)
    near "$got" "$(cat ge.txt)" "peak in the last 5 ms"
    got=$(awk '/^Peak RAM/ { p = 1 } p && /^   Main:/ { print $2 }' out.txt)
    near "$got" "$(hwm_of sh.txt)" "sh's own peak (text)"
fi

# Without taskstats (forced here; an unprivileged user has none): the same
# workloads give lower bounds, labelled so, never figures above the truth.
GT_PEAKS=sampled "$GT_BIN" --st=0.1 --ru=bytes -f json -- sh -c \
    "$W/grow_exit 100 250 5 ge.txt; cat /proc/\$\$/status >sh.txt" >out.txt
json_report out.txt >r.json
not_above "$(jget r.json .peak_ram.largest_descendant)" "$(cat ge.txt)" "sampled descendant peak"
not_above "$(jget r.json .peak_ram.main)" "$(hwm_of sh.txt)" "sampled main peak"
for k in main_method largest_descendant_method; do
    [ "$(jget r.json .peak_ram.$k)" = "lower bound (sampled)" ] || fail "$k: $(jq -c .peak_ram r.json)"
done

# wait4's figure bounds main's own peak from above: a command that reaps no
# child and whose peak the samples saw (it holds its memory for 0.5 s) has
# that peak confirmed exact without taskstats.  (The figure starts from the
# launcher's own high-water mark, about 57 MB under valgrind: hence 256 MiB.)
GT_PEAKS=sampled "$GT_BIN" --st=0.02 --ru=bytes -f json -- "$W/touch_mem" 256 0.5 >out.txt
json_report out.txt >r.json
[ "$(jget r.json .peak_ram.main_method)" = exact ] || fail "confirmed by wait4: $(jq -c .peak_ram r.json)"
within "$(jget r.json .peak_ram.main)" $((256 << 20)) $((260 << 20)) "touch_mem's own peak"

# The same as an unprivileged user, whom taskstats refuses: from a copy of
# the binary that user can reach.
if [ "$(id -u)" = 0 ]; then
    chmod 755 "$TMP"
    cp "$GT_BIN" "$W/grow_exit" "$TMP/"
    mkdir -m 777 u
    (cd u && setpriv --reuid=65534 --regid=65534 --clear-groups -- "$TMP/gpu-tracker" --st=0.1 --ru=bytes \
        -f json -- sh -c "$TMP/grow_exit 50 100 5 ge.txt" >out.txt 2>err.txt) || fail "as nobody: $(cat u/err.txt)"
    json_report u/out.txt >r.json
    not_above "$(jget r.json .peak_ram.largest_descendant)" "$(cat u/ge.txt)" "unprivileged descendant peak"
    [ "$(jget r.json .peak_ram.largest_descendant_method)" = "lower bound (sampled)" ] ||
        fail "unprivileged method: $(jq -c .peak_ram r.json)"
fi
echo ok
