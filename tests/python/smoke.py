# SPDX-License-Identifier: MIT
"""The package under any Python 3.9+ interpreter, without pytest or any
third-party module: the Tracker, its report and its errors.  Exits non-zero
on the first failed check."""
import json
import sys
import time

import gpu_tracker as gput

assert sys.version_info >= (3, 9), sys.version
with gput.Tracker(sleep_time=0.01, ram_unit='megabytes', time_unit='seconds', disable_logs=True) as tracker:
    data = b'\x01' * (64 << 20)
    time.sleep(0.1)
del data  # after the last sample, taken by stop(), so it must be seen
usage = tracker.resource_usage
assert usage.max_ram.main.total_rss >= 64 * 1.048576, usage.max_ram
assert str(tracker).startswith('Max RAM:\n   Unit: megabytes\n'), str(tracker)
assert json.loads(json.dumps(tracker.to_json()))['compute_time']['unit'] == 'seconds'
try:
    gput.Tracker(time_unit='weeks')
except ValueError as error:
    assert str(error) == '"weeks" is not a valid time unit. Valid values are days, hours, minutes, seconds'
else:
    raise AssertionError('an invalid unit was accepted')
print(f'ok: Python {sys.version.split()[0]}, main total RSS {usage.max_ram.main.total_rss:.1f} MB')
