# SPDX-License-Identifier: MIT
# union.py PID...: bytes of the physical pages that the given processes map,
# each page counted once however many of them map it (from
# /proc/PID/pagemap; root sees the frame numbers).  The truth that combined
# RSS estimates.
import struct
import sys

PAGE = 4096
frames = set()
for pid in sys.argv[1:]:
    with open('/proc/%s/maps' % pid) as maps, open('/proc/%s/pagemap' % pid, 'rb') as pm:
        for line in maps:
            lo, hi = (int(x, 16) for x in line.split()[0].split('-'))
            if line.rstrip().endswith('[vsyscall]'):
                continue
            pm.seek(lo // PAGE * 8)
            for (e,) in struct.iter_unpack('<Q', pm.read((hi - lo) // PAGE * 8)):
                if e >> 63:  # present
                    frames.add(e & ((1 << 55) - 1))
print(len(frames) * PAGE)
