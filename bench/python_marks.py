# SPDX-License-Identifier: MIT
"""What a Python SubTracker's mark costs: gt_subtracker_mark_at with the
process ID taken once and this interpreter's time.time() (how SubTracker
marks, so that tests replacing gpu_tracker.sub_tracker.time fix the marks),
against gt_subtracker_mark (the library's own process ID and clock), in
alternating rounds on one CSV file.  Run with the package importable:
GT_BUILD=build tests/python/run.sh /usr/bin/python3 bench/python_marks.py [ROUNDS]"""
import os
import statistics
import sys
import tempfile
import time

from gpu_tracker import _lib
from gpu_tracker.sub_tracker import _files

N = 20000


def per_mark_us(mark):
    start = time.perf_counter()
    mark()
    return (time.perf_counter() - start) / N * 1e6


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    os.chdir(tempfile.mkdtemp())
    handle = _files.get('marks.csv', True)
    mark_at, mark = _lib.require('gt_subtracker_mark_at'), _lib.require('gt_subtracker_mark')
    pid, name = os.getpid(), b'block'
    given, own = [], []
    for _ in range(rounds):
        given.append(per_mark_us(lambda: [mark_at(handle, name, i & 1, pid, time.time()) for i in range(N)]))
        own.append(per_mark_us(lambda: [mark(handle, name, i & 1) for i in range(N)]))
    for label, times in (('process ID and time.time() given', given), ('the library\'s own', own)):
        print(f'{label}: median {statistics.median(times):.2f} us per mark, min {min(times):.2f} '
              f'({rounds} rounds of {N})')


if __name__ == '__main__':
    main()
