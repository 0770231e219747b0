# SPDX-License-Identifier: MIT
"""What the IPython extension's GPU polling and memory settling cost a
notebook; run by bench/notebook-gpu-poll against the fake NVML (one GPU
holding this process's memory).  Prints one figure per line."""
import os
import statistics
import sys
import time

from gpu_tracker.notebook import _CellTracker


def measure(settings, body, n):
    """Median wall and mean CPU (this process, the sampling thread included)
    milliseconds of a cell running body, over n cells."""
    cells = _CellTracker(shell=None)
    cells.options.update(settings)
    walls, cpu0 = [], None
    stdout, sys.stdout = sys.stdout, open(os.devnull, 'w')
    try:
        for i in range(n + 1):
            if i == 1:  # the first cell probes the GPU once: not counted
                cpu0 = time.process_time()
            t0 = time.perf_counter()
            cells.pre_run_cell()
            body()
            cells.post_run_cell()
            if i:
                walls.append(time.perf_counter() - t0)
    finally:
        sys.stdout = stdout
    return statistics.median(walls) * 1e3, (time.process_time() - cpu0) * 1e3 / n


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    for label, settings in (('gpu_poll=0.001 (default)', {}),
                            ('gpu_poll=0.01', {'gpu_poll': 0.01}),
                            ('gpu_poll=off (sleep_time 0.1)', {'gpu_poll': None})):
        wall, cpu = measure(settings, lambda: None, n)
        print(f'empty cell, {label:30} {wall:7.2f} ms wall (median), {cpu:6.2f} ms CPU (mean)')
        wall, cpu = measure(settings, lambda: time.sleep(1.0), max(n // 10, 3))
        print(f'1 s sleeping cell, {label:23} {wall:7.1f} ms wall (median), {cpu:6.1f} ms CPU (mean) '
              f'= {cpu / 10:.1f}% of one core')
    junk = [[i] for i in range(10 ** 6)]  # a large heap makes gc.collect() slow
    for label, settings in (('gc_collect=on (default)', {}), ('gc_collect=off', {'gc_collect': False})):
        wall, cpu = measure(settings, lambda: None, n)
        print(f'empty cell, 10^6 objects, {label:24} {wall:7.2f} ms wall (median), {cpu:6.2f} ms CPU (mean)')
    del junk


if __name__ == '__main__':
    main()
