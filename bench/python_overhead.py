# SPDX-License-Identifier: MIT
"""Measures what the Python package costs the program it tracks; run by
bench/python-overhead, which makes the package importable.  Prints one
figure per line."""
import os
import resource
import statistics
import sys
import tempfile
import time


def rss_mb():
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1]) * 1024 / 1e6
    return float('nan')


def per_call(fn, n):
    """Median wall and mean CPU milliseconds of one call of fn, over n calls."""
    walls = []
    cpu0 = time.process_time()
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        walls.append(time.perf_counter() - t0)
    return statistics.median(walls) * 1e3, (time.process_time() - cpu0) * 1e3 / n


def import_cost(module):
    """Prints 'milliseconds megabytes' of importing module in this fresh interpreter."""
    rss0 = rss_mb()
    t0 = time.perf_counter()
    __import__(module)
    print(f'{(time.perf_counter() - t0) * 1e3:.1f} {rss_mb() - rss0:.1f}')


def main():
    if sys.argv[1] == '--import':
        import_cost(sys.argv[2])
        return
    n = int(sys.argv[1])
    import gpu_tracker as gput

    def tracker():
        with gput.Tracker(disable_logs=True):
            pass

    tracker()  # the first one loads the GPU libraries' absence, caches, ...
    rss1 = rss_mb()
    wall, cpu = per_call(tracker, n)
    print(f'with Tracker(): pass              {wall:.2f} ms wall (median), {cpu:.2f} ms CPU (mean), '
          f'RSS after {n}: {rss_mb() - rss1:+.1f} MB')

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 'marks.csv')
        try:
            def block():
                with gput.SubTracker(code_block_name='bench', sub_tracking_file=path):
                    pass
            block()
        except NotImplementedError as e:
            print(f'SubTracker mark:                  not measured ({e})')
        else:
            wall, cpu = per_call(block, n * 10)
            print(f'SubTracker mark (start or stop):  {wall / 2 * 1e3:.1f} us wall (median), '
                  f'{cpu / 2 * 1e3:.1f} us CPU (mean)')

    from gpu_tracker.notebook import _CellTracker
    cells = _CellTracker(shell=None)

    def cell():
        cells.pre_run_cell()
        cells.post_run_cell()

    devnull = open(os.devnull, 'w')
    stdout, sys.stdout = sys.stdout, devnull
    try:
        cell()
        wall, cpu = per_call(cell, n)
    finally:
        sys.stdout = stdout
    print(f'per-cell line (IPython extension): {wall:.2f} ms wall (median), {cpu:.2f} ms CPU (mean)')
    print(f'max RSS of this process:          {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6:.1f} MB')


if __name__ == '__main__':
    main()
