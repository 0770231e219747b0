# SPDX-License-Identifier: MIT
# Under a very low open-files limit (ulimit -n, soft and hard, so it cannot
# be raised) gpu-tracker either refuses before running the command, saying
# that descriptors are short, or runs it and writes its report and tracking
# file, warning that figures are missing: never "process N does not exist"
# about a command that ran.  Each limit from one too few to start up to one
# that is plenty is tried, so the limits where the sampler's own files run
# short are among them whatever this machine's libraries open.
. "$(dirname "$0")/_lib.sh"

ran_any=0 short_any=0
for n in $(seq 6 40); do
    rm -f ran t.csv
    rc=0
    (ulimit -n $n && exec "$GT_BIN" --st=0.02 --tf=t.csv -- sh -c 'echo ran >ran; exit 3') >out.txt 2>err.txt || rc=$?
    if grep -q 'does not exist' err.txt; then
        fail "ulimit -n $n: $(cat err.txt)"
    fi
    if [ -f ran ]; then
        ran_any=1
        [ $rc = 3 ] || fail "ulimit -n $n: the command ran, exit status $rc, not its 3: $(cat err.txt)"
        grep -q 'status code: 3' out.txt || fail "ulimit -n $n: no status line"
        grep -q '^Max RAM:' out.txt || fail "ulimit -n $n: the command ran, no report: $(cat err.txt)"
        [ $(($(wc -l <t.csv) - 3)) -ge 1 ] || fail "ulimit -n $n: no sample in the tracking file"
        if grep -q 'too few file descriptors (open files limit '$n')' err.txt; then
            short_any=1
        fi
    else
        [ $rc != 0 ] || fail "ulimit -n $n: exit status 0 without running the command"
        grep -q 'Too many open files\|file descriptors' err.txt ||
            fail "ulimit -n $n: refused without saying descriptors are short: $(cat err.txt)"
    fi
done
[ $ran_any = 1 ] || fail "the command never ran, even under ulimit -n 40"
echo "limits where descriptors ran short while tracking: seen=$short_any"
