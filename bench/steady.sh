# SPDX-License-Identifier: MIT
# Sourced by the benchmarks that measure the tracker's steady cost: the CPU
# time of its threads between a warm-up and the end of a run, over the
# samples written in between.

# Nanoseconds of CPU all threads of process $1 have run (0 once it is gone).
cpu_ns() {
    cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%d\n", s }'
}
# Samples in tracking file $1 so far (after its 3 header lines).
rows() {
    local n
    n=$({ wc -l <"$1"; } 2>/dev/null || echo 0)
    echo $((n > 3 ? n - 3 : 0))
}
# Microseconds since the epoch, for waiting until a moment of the run.
now_us() { echo $((${EPOCHREALTIME/./})); }
# Sleeps until microsecond $1 since the epoch (at once if it is past).
sleep_until_us() {
    local wait_us=$(($1 - $(now_us)))
    [ "$wait_us" -gt 0 ] && sleep "$(awk -v u="$wait_us" 'BEGIN { print u / 1e6 }')"
    return 0
}
