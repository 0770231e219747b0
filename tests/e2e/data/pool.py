# SPDX-License-Identifier: MIT
# pool.py DIR: a multiprocessing.Pool of two workers that each make 30 or
# 50 MiB resident, say so with DIR/ready.PID, and hold it until DIR/release
# exists; the parent holds 20 MiB of its own, shared with them after fork.
# Each process leaves its own /proc/self/status at its end in DIR/status.*
# (the workers' after their task, the parent's after the pool is gone).
import multiprocessing as mp
import os
import sys
import time

D = sys.argv[1]


def hold(mib):
    x = b'w' * (mib << 20)  # every page written: resident
    open(os.path.join(D, 'ready.%d' % os.getpid()), 'w').close()
    while not os.path.exists(os.path.join(D, 'release')):
        time.sleep(0.01)
    status('status.%d' % os.getpid())
    return len(x)


def status(name):
    with open('/proc/self/status') as f, open(os.path.join(D, name), 'w') as out:
        out.write(f.read())


if __name__ == '__main__':
    base = b'p' * (20 << 20)
    with mp.get_context('fork').Pool(2) as pool:
        print(sum(pool.map(hold, [30, 50], chunksize=1)) + len(base))
    status('status.main')
