# SPDX-License-Identifier: MIT
"""Tracker and ResourceUsage: real workloads whose truth the test knows,
the Python package's layouts (checked against its reference outputs) and its
errors."""
import csv
import dataclasses
import glob
import json
import logging
import multiprocessing as mp
import os
import re
import subprocess
import sys
import time

import pytest

import gpu_tracker as gput
from gpu_tracker import _lib
from conftest import MIB, MB, touch_mib, run_python, table_columns

REF = os.environ.get('GT_REF', os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'reference'))
TRACKER_OUTPUT = os.path.join(REF, 'tracker-output')


def idle_main_ram_mb():
    with gput.Tracker(sleep_time=0.01, ram_unit='megabytes', disable_logs=True) as tracker:
        pass
    return tracker.resource_usage.max_ram.main.total_rss


def test_data_classes_have_the_python_packages_fields():
    fields = {cls.__name__: [f.name for f in dataclasses.fields(cls)]
              for cls in (gput.RSSValues, gput.MaxRAM, gput.MaxGPURAM, gput.ProcessingUnitPercentages,
                          gput.CPUUtilization, gput.GPUUtilization, gput.ComputeTime)}
    assert fields == {
        'RSSValues': ['total_rss', 'private_rss', 'shared_rss'],
        'MaxRAM': ['unit', 'system_capacity', 'system', 'main', 'descendants', 'combined'],
        'MaxGPURAM': ['unit', 'system_capacity', 'system', 'main', 'descendants', 'combined'],
        'ProcessingUnitPercentages': ['max_sum_percent', 'max_hardware_percent', 'mean_sum_percent', 'mean_hardware_percent'],
        'CPUUtilization': ['system_core_count', 'n_expected_cores', 'system', 'main', 'descendants', 'combined',
                           'main_n_threads', 'descendants_n_threads', 'combined_n_threads'],
        'GPUUtilization': ['system_gpu_count', 'n_expected_gpus', 'gpu_percentages'],
        'ComputeTime': ['unit', 'time'],
    }
    assert [f.name for f in dataclasses.fields(gput.ResourceUsage)][:5] == [
        'max_ram', 'max_gpu_ram', 'cpu_utilization', 'gpu_utilization', 'compute_time']
    # The package's module path and name, which its pickles name.
    from gpu_tracker.tracker import ProcessingUnitPercentages
    assert gput.Percentages is ProcessingUnitPercentages  # the name of earlier versions of this package
    assert ProcessingUnitPercentages.__module__ == 'gpu_tracker.tracker'


def test_data_classes_have_the_python_packages_defaults():
    # What the package's own code builds before the first sample.
    zero = gput.ProcessingUnitPercentages(0.0, 0.0, 0.0, 0.0)
    assert gput.ProcessingUnitPercentages() == zero
    assert gput.RSSValues() == gput.RSSValues(0.0, 0.0, 0.0)
    assert gput.ComputeTime('hours') == gput.ComputeTime('hours', 0.0)
    assert gput.MaxRAM('gigabytes', 16.0) == gput.MaxRAM('gigabytes', 16.0, 0.0, gput.RSSValues(), gput.RSSValues(),
                                                         gput.RSSValues())
    assert gput.MaxGPURAM('gigabytes', 16.0) == gput.MaxGPURAM('gigabytes', 16.0, 0.0, 0.0, 0.0, 0.0)
    assert gput.CPUUtilization(4, 4) == gput.CPUUtilization(4, 4, zero, zero, zero, zero, 0, 0, 0)
    assert gput.GPUUtilization(0, 0) == gput.GPUUtilization(0, 0, zero)
    # Each default is an object of its own, not one shared by every instance.
    a, b = gput.MaxRAM('bytes', 1.0), gput.MaxRAM('bytes', 1.0)
    a.main.total_rss = 5.0
    assert b.main.total_rss == 0.0


@pytest.mark.parametrize('c_name, structure', [('gt_options', 'Options'), ('gt_analyze_options', 'AnalyzeOptions'),
                                               ('gt_compare_options', 'CompareOptions')])
def test_options_struct_matches_the_header(c_name, structure):
    """The ctypes gt_options (and the options of the operations the package
    calls) must list the header's fields in the header's order, and be of the
    header's struct version: the package and the library are one release, so
    the package is written for all of their fields."""
    header = open(os.path.join(os.path.dirname(__file__), '..', '..', 'include', 'gpu_tracker.h')).read()
    assert f'#define GT_STRUCT_VERSION {_lib.STRUCT_VERSION}\n' in header
    body = re.search(rf'typedef struct {c_name} \{{(.*?)\}} {c_name};', header, re.S).group(1)
    body = re.sub(r'/\*.*?\*/', '', body, flags=re.S)
    names = []
    for decl in body.split(';'):
        decl = decl.strip()
        if decl:
            names.append(re.findall(r'\w+', decl)[-1])
    assert [f[0] for f in getattr(_lib, structure)._fields_] == names


def test_statuses_match_the_header():
    """The package's gt_status numbers are the header's enum, each status has
    the library's own text (gt_strerror), and a failure without a message is
    raised with that text."""
    header = open(os.path.join(os.path.dirname(__file__), '..', '..', 'include', 'gpu_tracker.h')).read()
    body = re.search(r'typedef enum gt_status \{(.*?)\} gt_status;', header, re.S).group(1)
    names = re.findall(r'^\s*(GT_\w+)', re.sub(r'/\*.*?\*/', '', body, flags=re.S), re.M)
    assert names[0] == 'GT_OK' and len(names) > 2
    assert [getattr(_lib, n) for n in names] == list(range(len(names)))
    texts = [_lib.strerror(getattr(_lib, n)) for n in names]
    assert all(texts) and len(set(texts)) == len(texts)
    assert _lib.strerror(len(names)) == 'unknown status' and 'unknown status' not in texts
    assert _lib.strerror(_lib.GT_ERR_NOMEM) == 'out of memory'
    assert set(_lib._EXCEPTIONS) == set(range(1, len(names)))
    with pytest.raises(MemoryError, match='^out of memory$'):
        _lib.check(_lib.GT_ERR_NOMEM, '')
    with pytest.raises(ValueError, match='^bad$'):
        _lib.check(_lib.GT_ERR_INVALID, 'bad')


def test_memory_of_a_known_allocation():
    baseline = idle_main_ram_mb()
    with gput.Tracker(sleep_time=0.02, ram_unit='megabytes', time_unit='seconds') as tracker:
        data = touch_mib(200)
        time.sleep(0.3)
    del data  # after the last sample, taken by stop(), so it must be seen
    usage = tracker.resource_usage
    grown = usage.max_ram.main.total_rss - baseline
    assert 200 * MIB / MB * 0.97 <= grown <= 200 * MIB / MB + 60
    assert usage.max_ram.main.private_rss >= 200 * MIB / MB
    assert usage.max_ram.combined.total_rss >= usage.max_ram.main.total_rss
    assert usage.max_ram.descendants == gput.RSSValues(0.0, 0.0, 0.0)
    assert usage.max_ram.unit == 'megabytes' and usage.compute_time.unit == 'seconds'
    assert usage.max_ram.system_capacity > usage.max_ram.system > 0
    # The kernel's high-water mark cannot be below any sample.
    assert usage.peak_ram.main >= usage.max_ram.main.total_rss * 0.95
    assert usage.compute_time.time >= 0.3


def test_numpy_arrays_are_measured():
    np = pytest.importorskip('numpy')  # python3-numpy comes with python3-pandas (setup-deps.sh)
    baseline = idle_main_ram_mb()
    with gput.Tracker(sleep_time=0.02, ram_unit='megabytes') as tracker:
        array = np.ones(100 * MIB // 8)
        time.sleep(0.3)
    del array
    grown = tracker.resource_usage.max_ram.main.total_rss - baseline
    assert 100 * MIB / MB * 0.97 <= grown <= 100 * MIB / MB + 60


def test_units_scale_the_same_measurement():
    data = touch_mib(50)
    t0 = time.monotonic()
    # Sampled totals: the event backend's (the kernel's) may exceed the sum
    # of the sampled private and shared maxima.
    with gput.Tracker(sleep_time=0.05, ram_unit='bytes', gpu_ram_unit='kilobytes', time_unit='minutes',
                      events='off') as tracker:
        time.sleep(0.2)
    wall = time.monotonic() - t0
    del data
    usage = tracker.resource_usage
    assert usage.max_ram.unit == 'bytes' and usage.max_gpu_ram.unit == 'kilobytes'
    assert usage.max_ram.main.total_rss >= 50 * MIB
    # Private and shared are each their own maximum; total is the largest sum at one sample.
    assert usage.max_ram.main.total_rss <= usage.max_ram.main.private_rss + usage.max_ram.main.shared_rss
    assert 0.2 / 60 <= usage.compute_time.time <= wall / 60  # minutes: the run's own wall time bounds it
    assert usage.cpu_utilization.system_core_count == os.cpu_count()
    assert usage.cpu_utilization.n_expected_cores == os.cpu_count()


def test_start_stop_and_state_errors():
    tracker = gput.Tracker(sleep_time=0.01)
    assert repr(tracker) == 'State: NEW'
    with pytest.raises(RuntimeError) as error:
        tracker.stop()
    assert str(error.value) == 'Cannot stop tracking when tracking has not started yet.'
    t0 = time.monotonic()
    tracker.start()
    assert repr(tracker) == 'State: STARTED'
    with pytest.raises(RuntimeError) as error:
        tracker.start()
    assert str(error.value) == 'Cannot start tracking when tracking has already started.'
    time.sleep(0.05)
    tracker.stop()
    wall = time.monotonic() - t0
    assert repr(tracker) == 'State: STOPPED'
    with pytest.raises(RuntimeError) as error:
        tracker.start()
    assert str(error.value) == 'Cannot start tracking when tracking has already stopped.'
    with pytest.raises(RuntimeError) as error:
        tracker.stop()
    assert str(error.value) == 'Cannot stop tracking when tracking has already stopped.'
    # Hours, the default unit: at least the 50 ms slept, at most the wall time measured here.
    assert 0.05 / 3600 <= tracker.resource_usage.compute_time.time <= wall / 3600


@pytest.mark.parametrize('kwargs, exception, message', [
    (dict(ram_unit='mb'), ValueError,
     '"mb" is not a valid RAM unit. Valid values are bytes, gigabytes, kilobytes, megabytes, terabytes'),
    (dict(gpu_ram_unit='GB'), ValueError,
     '"GB" is not a valid GPU RAM unit. Valid values are bytes, gigabytes, kilobytes, megabytes, terabytes'),
    (dict(time_unit='weeks'), ValueError,
     '"weeks" is not a valid time unit. Valid values are days, hours, minutes, seconds'),
    # The package's words (its bounds are 0.1 s and none; ours 0.001 s to a day).
    (dict(sleep_time=0), ValueError, 'Sleep time of 0 is invalid. Must be at least 0.001 seconds.'),
    (dict(sleep_time=1e19), ValueError, 'Sleep time of 1e+19 is invalid. Must be at most 86400 seconds.'),
    (dict(sleep_time='1'), TypeError, 'sleep_time must be a number of seconds, not str'),
    (dict(n_expected_cores=0), ValueError, 'n_expected_cores of 0 is invalid: must be a positive integer'),
    (dict(n_expected_cores=2**40), ValueError,
     'n_expected_cores of 1099511627776 is invalid: must be a positive integer'),
    # A C int would wrap these to another process (2**32 + PID is PID) or to 0.
    (dict(process_id=2**32 + os.getpid()), ValueError,
     f'process_id of {2**32 + os.getpid()} is invalid: must be a positive integer up to 2147483647'),
    (dict(process_id=2**40), ValueError,
     'process_id of 1099511627776 is invalid: must be a positive integer up to 2147483647'),
    (dict(process_id=-1), ValueError, 'process_id of -1 is invalid: must be a positive integer up to 2147483647'),
    (dict(gpu_uuids=[]), ValueError,
     'gpu_uuids is not None but the set is empty. Please provide a set of at least one GPU UUID.'),
    (dict(tracking_file='usage.txt'), ValueError,
     'Invalid file name: "usage.txt". Valid file extensions are ".csv" and ".sqlite".'),
    (dict(tracking_file='no/such/dir/usage.csv'), OSError,
     "cannot create tracking file 'no/such/dir/usage.csv': No such file or directory"),
])
def test_invalid_arguments(kwargs, exception, message):
    with pytest.raises(exception) as error:
        gput.Tracker(**kwargs)
    assert str(error.value) == message


def test_invalid_gpu_brand_names_every_brand():
    # The Python package's words for its two brands; a brand that a vendor
    # backend of the library adds is listed after them.
    brands = _lib.gpu_brands()
    assert brands[:2] == ['nvidia', 'amd']
    listed = ', '.join(f'"{name}"' for name in brands[:-1]) + f' and "{brands[-1]}"'
    with pytest.raises(ValueError) as error:
        gput.Tracker(gpu_brand='intel')
    assert str(error.value) == f'"intel" is not a valid GPU brand. Supported values are {listed}.'
    # A NUL byte would cut the name short in C: refused, not read as "amd".
    with pytest.raises(ValueError):
        gput.Tracker(gpu_brand='amd\0x')


def test_usage_up_to_an_exception_is_kept():
    with pytest.raises(RuntimeError, match='AN ERROR'):
        with gput.Tracker(sleep_time=0.02, ram_unit='megabytes', time_unit='seconds') as tracker:
            data = touch_mib(100)
            time.sleep(0.2)
            raise RuntimeError('AN ERROR')
    del data
    assert repr(tracker) == 'State: STOPPED'
    assert tracker.resource_usage.max_ram.main.total_rss >= 100 * MIB / MB
    assert tracker.resource_usage.compute_time.time >= 0.2


def _child(n_mib, ready, done):
    data = b'\x02' * (n_mib * MIB)
    ready.set()
    done.wait(600)  # a bound on a stuck test only
    del data


def test_child_processes_are_descendants():
    ctx = mp.get_context('spawn')
    ready, done = ctx.Event(), ctx.Event()
    children = [ctx.Process(target=_child, args=(n, ready, done)) for n in (60,)]
    with gput.Tracker(sleep_time=0.02, ram_unit='megabytes', n_expected_cores=2) as tracker:
        for child in children:
            child.start()
        assert ready.wait(600)
        time.sleep(0.2)
    # The children hold their memory until after the last sample, taken by stop().
    done.set()
    for child in children:
        child.join()
    usage = tracker.resource_usage
    assert usage.max_ram.descendants.total_rss >= 60 * MIB / MB
    assert usage.max_ram.combined.total_rss >= usage.max_ram.descendants.total_rss
    assert usage.cpu_utilization.descendants_n_threads >= 1
    assert usage.cpu_utilization.combined_n_threads >= usage.cpu_utilization.main_n_threads + 1
    assert usage.cpu_utilization.n_expected_cores == 2
    assert usage.peak_ram.largest_descendant >= 60 * MIB / MB


def test_another_process_by_id():
    code = 'import sys, time; d = b"x" * (80 << 20); print("ready", flush=True); sys.stdin.read(); del d'
    child = subprocess.Popen([sys.executable, '-c', code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == 'ready\n'
        with gput.Tracker(sleep_time=0.02, process_id=child.pid, ram_unit='megabytes') as tracker:
            time.sleep(0.2)
    finally:
        child.communicate('')
    assert tracker.process_id == child.pid
    assert tracker.resource_usage.max_ram.main.total_rss >= 80 * MIB / MB


def test_a_process_that_does_not_exist(caplog):
    child = subprocess.Popen([sys.executable, '-c', 'pass'])
    child.wait()  # reaped: its PID names no process now
    # As the Python package: a warning, not an exception, and no usage.
    with caplog.at_level(logging.WARNING, logger='gpu_tracker'):
        with gput.Tracker(process_id=child.pid) as tracker:
            pass
    assert f'The target process of ID {child.pid} ended before tracking could begin.' in caplog.messages
    assert tracker.state == gput.Tracker.State.STOPPED
    # The package's report of it: 0.0 throughout, the time and the CPU percents included.
    usage = tracker.resource_usage
    assert usage.max_ram.main.total_rss == 0.0
    assert usage.compute_time.time == 0.0
    cpu = usage.cpu_utilization
    for percentages in (cpu.system, cpu.main, cpu.descendants, cpu.combined):
        assert percentages == gput.ProcessingUnitPercentages(0.0, 0.0, 0.0, 0.0)
    assert (cpu.main_n_threads, cpu.descendants_n_threads, cpu.combined_n_threads) == (0, 0, 0)
    assert '      Max sum percent: 0.0\n' in str(tracker) and '   Time: 0.0\n' in str(tracker)
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger='gpu_tracker'):
        with gput.Tracker(process_id=child.pid, disable_logs=True):
            pass
    assert not any('ended before tracking' in m for m in caplog.messages)


def test_state_and_display_before_stop():
    # The package's words, its typo included, which scripts and tests match.
    message = ('Cannot display the tracker in string or JSON format before tracking completes. Exit the content '
               'manager or call the stop() method before calling to_json() or str()')
    tracker = gput.Tracker(sleep_time=0.05)
    assert tracker.state == gput.Tracker.State.NEW
    assert tracker.resource_usage is None
    for display in (str, lambda t: t.to_json()):
        with pytest.raises(RuntimeError) as error:
            display(tracker)
        assert str(error.value) == message
    tracker.start()
    assert tracker.state == gput.Tracker.State.STARTED
    assert tracker.resource_usage is None
    with pytest.raises(RuntimeError) as error:
        str(tracker)
    assert str(error.value) == message
    tracker.stop()
    assert tracker.state == gput.Tracker.State.STOPPED
    assert str(tracker).startswith('Max RAM:') and 'max_ram' in tracker.to_json()


def test_cpu_time_of_the_main_process():
    with gput.Tracker(sleep_time=0.05, n_expected_cores=1) as tracker:
        end = time.process_time() + 0.5
        while time.process_time() < end:
            pass
    main = tracker.resource_usage.cpu_utilization.main
    assert main.max_sum_percent > 0 and main.mean_sum_percent > 0
    assert main.max_hardware_percent == main.max_sum_percent  # one expected core


def _shape(value):
    """The keys of a JSON value, recursively, without its numbers."""
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items()}
    return type(value).__name__ if not isinstance(value, (int, float)) else 'number'


def _labels(text):
    return [line.split(':')[0] for line in text.splitlines()]


@pytest.mark.parametrize('reference', sorted(glob.glob(os.path.join(TRACKER_OUTPUT, 'False-*.json'))))
def test_layout_matches_the_python_package(reference):
    ram_unit, gpu_ram_unit, time_unit = os.path.basename(reference)[:-5].split('-')[2:]
    with gput.Tracker(sleep_time=0.01, ram_unit=ram_unit, gpu_ram_unit=gpu_ram_unit, time_unit=time_unit,
                      disable_logs=True) as tracker:
        pass
    expected = json.load(open(reference))
    got = tracker.to_json()
    for own in ('peak_ram', 'max_ram_method', 'energy', 'incremental', 'other_metrics'):  # ours, after the package's
        got.pop(own, None)
    assert _shape(got) == _shape(expected)
    assert list(got) == list(expected)
    assert got['max_ram']['unit'] == expected['max_ram']['unit']
    assert got['compute_time']['unit'] == expected['compute_time']['unit']
    text = str(tracker)
    assert text == str(tracker.resource_usage)
    python_text = text.split('\nPeak RAM')[0]
    assert _labels(python_text) == _labels(open(reference[:-5] + '.txt').read())
    # Text is the JSON's values rounded to three places, as the Python package prints them.
    assert f'      Total RSS: {round(got["max_ram"]["main"]["total_rss"], 3)}\n' in text
    assert tracker.resource_usage.to_json() == tracker.to_json()
    # A ResourceUsage made by hand gives the same layout from its fields.
    usage = tracker.resource_usage
    by_hand = gput.ResourceUsage(usage.max_ram, usage.max_gpu_ram, usage.cpu_utilization, usage.gpu_utilization,
                                 usage.compute_time)
    assert by_hand.to_json() == {k: v for k, v in got.items() if k in expected}


def test_no_energy_columns_without_energy(no_rapl):
    # No energy measured: the Python package's columns and gpu-tracker's own (the metric table's
    # layout), no empty energy columns, which the package's analyzer would turn into NaN rows.
    with gput.Tracker(sleep_time=0.02, tracking_file='plain.csv', disable_logs=True):
        with gput.SubTracker(code_block_name='block', sub_tracking_file='marks.csv'):
            time.sleep(0.05)
    rows = list(csv.reader(open('plain.csv')))
    assert rows[2] == table_columns() and rows[2][21] == 'timestamp'
    assert all(len(r) == len(rows[2]) for r in rows[3:])
    # and no energy in the analysis: no empty energy table, no 'energy' keys
    results = gput.SubTrackingAnalyzer('plain.csv', 'marks.csv').sub_tracking_results()
    assert 'energy' not in results.to_json() and 'energy' not in results.to_json()['code_block_results'][0]
    assert 'Energy' not in str(results)


def test_tracking_file_and_overwrite(rapl_tree):
    with gput.Tracker(sleep_time=0.02, tracking_file='samples.csv', ram_unit='megabytes') as tracker:
        time.sleep(0.2)
    rows = list(csv.reader(open('samples.csv')))
    assert rows[0][:3] == ['ram_unit', 'gpu_ram_unit', 'time_unit'] and rows[1][0] == 'megabytes'
    # gpu-tracker's own columns, its energy columns (the metric table's layout), then its power columns
    # (one per RAPL domain kind present) follow the Python package's, which end with timestamp.
    assert rows[2][0] == 'main_ram' and rows[2][21] == 'timestamp'
    assert rows[2] == table_columns(energy=True) + ['package_power_watts']
    assert rows[2][-4:] == ['cpu_energy_joules', 'dram_energy_joules', 'gpu_energy_joules', 'package_power_watts']
    assert len(rows) - 3 >= 2  # first sample at start, last at stop
    with pytest.raises(FileExistsError) as error:
        gput.Tracker(tracking_file='samples.csv')
    assert str(error.value) == 'File samples.csv already exists. Set overwrite to True to overwrite the existing file.'
    open('side.processes.csv', 'w').close()  # the per-process file beside side.csv: named as it is
    with pytest.raises(FileExistsError) as error:
        gput.Tracker(tracking_file='side.csv', per_process=True)
    assert str(error.value) == ('File side.processes.csv already exists. Set overwrite to True to overwrite the '
                                'existing file.')

    with gput.Tracker(sleep_time=0.02, tracking_file='samples.csv', overwrite=True):
        pass
    assert list(csv.reader(open('samples.csv')))[1][0] == 'gigabytes'
    assert tracker.tracking_file == 'samples.csv'


def test_per_process_rows_and_top_processes():
    # A child that holds 60 MiB until told to exit, then prints its own
    # high-water mark: its rows, with its PID and ours as its parent, reach
    # its size and never pass that mark; the report ranks it among the top.
    code = ('import sys; x = b"\\x01" * (60 << 20); print(1, flush=True); sys.stdin.read(); '
            'print([int(l.split()[1]) * 1024 for l in open("/proc/self/status") if l.startswith("VmHWM:")][0])')
    child = subprocess.Popen([sys.executable, '-c', code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        with gput.Tracker(sleep_time=0.02, tracking_file='p.csv', ram_unit='megabytes', per_process=True) as tracker:
            assert child.stdout.readline() == '1\n'
            time.sleep(0.3)
    finally:
        hwm = int(child.communicate('')[0])
    rows = list(csv.DictReader(open('p.processes.csv')))
    mine = [r for r in rows if int(r['pid']) == child.pid]
    assert mine and all(int(r['ppid']) == os.getpid() for r in mine)
    peak = max(float(r['total_rss']) for r in mine if r['total_rss'])
    assert 60 * MIB / 1e6 <= peak <= hwm / 1e6 * (1 + 1e-12)  # MB from bytes, to rounding
    top = [p for p in tracker.to_json()['top_processes']['by_peak_ram'].values() if p['pid'] == child.pid]
    assert top and top[0]['peak_rss'] == pytest.approx(peak, rel=1e-12)
    with gput.Tracker(sleep_time=0.02, tracking_file='q.csv') as plain:
        pass
    assert not os.path.exists('q.processes.csv') and 'top_processes' not in plain.to_json()


def test_warnings_go_to_logging(caplog):
    with caplog.at_level(logging.WARNING, logger='gpu_tracker'):
        with gput.Tracker(sleep_time=0.01) as tracker:
            pass
    if tracker.resource_usage.gpu_utilization.system_gpu_count == 0:
        assert any('GPU' in r.getMessage() for r in caplog.records if r.name.startswith('gpu_tracker'))
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger='gpu_tracker'):
        with gput.Tracker(sleep_time=0.01, disable_logs=True):
            pass
    assert not [r for r in caplog.records if r.name.startswith('gpu_tracker')]


def test_trackers_alive_at_exit_do_not_crash_the_interpreter():
    proc = run_python('import gpu_tracker as g, time\nt = g.Tracker(sleep_time=0.001)\n'
                      'unstarted = g.Tracker(disable_logs=True)\nt.start()\ntime.sleep(0.05)\nprint("end")\n')
    assert proc.stdout == 'end\n'


def test_a_forked_child_exits_at_once():
    """A child forked while a Tracker runs has no sampling thread: its copy of
    the Tracker is inert, so neither stop() nor the exit waits for one.  The
    parent's tracking is unaffected.  (A hang is caught by a 30 s bound that
    a child doing nothing never comes near.)"""
    code = (
        'import os, sys, time, gpu_tracker as g\n'
        't = g.Tracker(sleep_time=0.01, disable_logs=True, time_unit="seconds")\n'
        't.start()\n'
        'children = []\n'
        'for stop_in_child in (True, False):\n'
        '    pid = os.fork()\n'
        '    if pid == 0:\n'
        '        if stop_in_child:\n'
        '            t.stop()\n'
        '            try:\n'
        '                t.start()\n'
        '            except RuntimeError as e:\n'
        '                print(e, flush=True)\n'
        '        sys.exit(0)  # runs the atexit hooks\n'
        '    children.append(pid)\n'
        'for pid in children:\n'
        '    for _ in range(3000):\n'
        '        done, status = os.waitpid(pid, os.WNOHANG)\n'
        '        if done:\n'
        '            break\n'
        '        time.sleep(0.01)\n'
        '    else:\n'
        '        os.kill(pid, 9)\n'
        '        os.waitpid(pid, 0)\n'
        '        sys.exit("a forked child hung at exit")\n'
        '    assert os.waitstatus_to_exitcode(status) == 0, status\n'
        'time.sleep(0.05)\n'
        't.stop()\n'
        'print("parent", t.resource_usage.compute_time.time >= 0.05)\n')
    proc = run_python(code)
    assert proc.stdout == ('Cannot start tracking in a forked child: this Tracker belongs to the parent process. '
                           'Create a new Tracker in the child.\nparent True\n')


def test_dram_energy_by_memory_share(tmp_path, monkeypatch):
    # A DRAM domain carries its memory-share attribution beside the CPU-time one; other domains do not.
    for zone, name in (('intel-rapl:0', 'package-0'), ('intel-rapl:0:0', 'dram')):
        d = tmp_path / 'sys' / 'class' / 'powercap' / zone
        d.mkdir(parents=True)
        (d / 'name').write_text(name + '\n')
        (d / 'max_energy_range_uj').write_text('262143328850\n')
        (d / 'energy_uj').write_text('1000000\n')
    monkeypatch.setenv('GT_SYSFS_ROOT', str(tmp_path / 'sys'))
    with gput.Tracker(sleep_time=0.02, disable_logs=True, tracking_file=str(tmp_path / 't.csv')) as tracker:
        time.sleep(0.1)
    cpu = tracker.resource_usage.energy.cpu
    assert cpu.dram_attribution_method.startswith('memory_share: ')
    assert cpu.domains['package-0:dram'].attributed_energy_memory_share_estimate == 0.0  # a still counter
    assert cpu.domains['package-0'].attributed_energy_memory_share_estimate is None
    assert 'Attributed energy by memory share (estimate): 0.0' in str(tracker)
    header = list(csv.reader(open(tmp_path / 't.csv')))[2]
    assert header[-2:] == ['package_power_watts', 'dram_power_watts']


# The Python package's gpu_tracker.tracker data classes as its documentation
# and reprs show them (names, fields, defaults): a stand-in for the package,
# to exchange pickles with.
PACKAGE_TRACKER = '''
import dataclasses as dclass

@dclass.dataclass
class RSSValues:
    total_rss: float = 0.
    private_rss: float = 0.
    shared_rss: float = 0.

@dclass.dataclass
class MaxRAM:
    unit: str
    system_capacity: float
    system: float = 0.
    main: RSSValues = dclass.field(default_factory=RSSValues)
    descendants: RSSValues = dclass.field(default_factory=RSSValues)
    combined: RSSValues = dclass.field(default_factory=RSSValues)

@dclass.dataclass
class MaxGPURAM:
    unit: str
    system_capacity: float
    system: float = 0.
    main: float = 0.
    descendants: float = 0.
    combined: float = 0.

@dclass.dataclass
class ProcessingUnitPercentages:
    max_sum_percent: float = 0.
    max_hardware_percent: float = 0.
    mean_sum_percent: float = 0.
    mean_hardware_percent: float = 0.

@dclass.dataclass
class CPUUtilization:
    system_core_count: int
    n_expected_cores: int
    system: ProcessingUnitPercentages = dclass.field(default_factory=ProcessingUnitPercentages)
    main: ProcessingUnitPercentages = dclass.field(default_factory=ProcessingUnitPercentages)
    descendants: ProcessingUnitPercentages = dclass.field(default_factory=ProcessingUnitPercentages)
    combined: ProcessingUnitPercentages = dclass.field(default_factory=ProcessingUnitPercentages)
    main_n_threads: int = 0
    descendants_n_threads: int = 0
    combined_n_threads: int = 0

@dclass.dataclass
class GPUUtilization:
    system_gpu_count: int
    n_expected_gpus: int
    gpu_percentages: ProcessingUnitPercentages = dclass.field(default_factory=ProcessingUnitPercentages)

@dclass.dataclass
class ComputeTime:
    unit: str
    time: float = 0.

@dclass.dataclass
class ResourceUsage:
    max_ram: MaxRAM
    max_gpu_ram: MaxGPURAM
    cpu_utilization: CPUUtilization
    gpu_utilization: GPUUtilization
    compute_time: ComputeTime
'''


@pytest.fixture
def package_stand_in(tmp_path):
    """A directory whose gpu_tracker package is the stand-in above."""
    root = tmp_path / 'package'
    (root / 'gpu_tracker').mkdir(parents=True)
    (root / 'gpu_tracker' / '__init__.py').write_text('')
    (root / 'gpu_tracker' / 'tracker.py').write_text(PACKAGE_TRACKER)
    return root


def test_pickled_resource_usage_crosses_both_packages(package_stand_in):
    import pickle
    package = {**os.environ, 'PYTHONPATH': str(package_stand_in)}
    # Ours, with gpu-tracker's own sections, loads in the package: it names
    # only the package's classes, and keeps the package's fields.
    with gput.Tracker(sleep_time=0.02, ram_unit='megabytes', python_heap=True) as tracker:
        data = touch_mib(20)
    del data
    usage = tracker.resource_usage
    assert usage.peak_ram is not None and usage.python_heap is not None
    with open('ours.pkl', 'wb') as f:
        pickle.dump(usage, f)
    code = ('import dataclasses, json, pickle, sys, gpu_tracker.tracker as t\n'
            'assert not hasattr(t, "Tracker")  # the stand-in, not this package\n'
            'u = pickle.load(open("ours.pkl", "rb"))\n'
            'assert type(u) is t.ResourceUsage and type(u.cpu_utilization.main) is t.ProcessingUnitPercentages\n'
            'print(json.dumps(dataclasses.asdict(u)))\n')
    got = subprocess.run([sys.executable, '-c', code], env=package, capture_output=True, text=True)
    assert got.returncode == 0, got.stderr
    theirs = json.loads(got.stdout)
    assert theirs == {k: v for k, v in usage.to_json().items() if k in theirs}
    assert list(theirs) == ['max_ram', 'max_gpu_ram', 'cpu_utilization', 'gpu_utilization', 'compute_time']
    # Loaded back here, nothing of ours is lost.
    with open('ours.pkl', 'rb') as f:
        again = pickle.load(f)
    assert again == usage and str(again) == str(usage) and again.to_json() == usage.to_json()
    assert again.peak_ram == usage.peak_ram and again.python_heap == usage.python_heap
    assert again.incremental == usage.incremental
    # The package's pickle loads here, as the package's data classes.
    code = ('import pickle, gpu_tracker.tracker as t\n'
            'u = t.ResourceUsage(t.MaxRAM("megabytes", 16000.0, 900.5, t.RSSValues(50.0, 40.0, 10.0)),\n'
            '                    t.MaxGPURAM("megabytes", 0.0), t.CPUUtilization(2, 2, t.ProcessingUnitPercentages(\n'
            '                        150.0, 75.0, 100.0, 50.0), main_n_threads=3), t.GPUUtilization(0, 0),\n'
            '                    t.ComputeTime("seconds", 2.5))\n'
            'pickle.dump(u, open("theirs.pkl", "wb"))\n')
    got = subprocess.run([sys.executable, '-c', code], env=package, capture_output=True, text=True)
    assert got.returncode == 0, got.stderr
    with open('theirs.pkl', 'rb') as f:
        theirs = pickle.load(f)
    assert type(theirs) is gput.ResourceUsage
    assert theirs.max_ram == gput.MaxRAM('megabytes', 16000.0, 900.5, gput.RSSValues(50.0, 40.0, 10.0))
    assert theirs.cpu_utilization == gput.CPUUtilization(2, 2, gput.ProcessingUnitPercentages(150.0, 75.0, 100.0, 50.0),
                                                         main_n_threads=3)
    assert theirs.compute_time == gput.ComputeTime('seconds', 2.5) and theirs.peak_ram is None
    assert theirs.to_json()['compute_time'] == {'unit': 'seconds', 'time': 2.5}
    assert str(theirs) == repr(theirs)  # the package's str() of its ResourceUsage


def test_our_sections_come_after_the_packages(rapl_tree):
    # Scripts that read the report by position find the package's five
    # sections first and in its order, in the text and in the JSON's keys.
    package = ['max_ram', 'max_gpu_ram', 'cpu_utilization', 'gpu_utilization', 'compute_time']
    with gput.Tracker(sleep_time=0.01, python_heap=True, energy_unit='joules') as tracker:
        time.sleep(0.05)
    keys = list(tracker.to_json())
    assert keys[:5] == package and {'peak_ram', 'energy', 'python_heap', 'incremental'} <= set(keys[5:])
    sections = [line[:-1] for line in str(tracker).splitlines() if line and not line.startswith(' ')]
    assert sections[:5] == ['Max RAM', 'Max GPU RAM', 'CPU utilization', 'GPU utilization', 'Compute time']
    assert 'Peak RAM (kernel high-water mark)' in sections[5:] and len(sections) > 5


def _write_bytes_of_self():
    with open('/proc/self/io') as f:
        return int(next(line for line in f if line.startswith('write_bytes:')).split()[1])


def test_other_metrics_in_the_report(tmp_path):
    # The report of a Tracker is the library's whole report: the metric
    # table's figures (disk I/O) follow the package's sections. Truth: this
    # process's own write counter, read before and after the stop that takes
    # the last sample, with 4 MiB written and synced while tracking.
    where = tmp_path
    if subprocess.run(['stat', '-f', '-c', '%T', str(where)], capture_output=True, text=True).stdout.strip() == 'tmpfs':
        where = os.environ.get('GT_BUILD', '.')
    if subprocess.run(['stat', '-f', '-c', '%T', str(where)], capture_output=True, text=True).stdout.strip() == 'tmpfs':
        pytest.skip('no filesystem that writes to storage')
    path = os.path.join(str(where), f'disk-{os.getpid()}.bin')
    with gput.Tracker(sleep_time=0.01, disable_logs=True) as tracker:
        with open(path, 'wb') as f:
            f.write(b'x' * (4 * MIB))
            f.flush()
            os.fsync(f.fileno())
        before = _write_bytes_of_self()
    after = _write_bytes_of_self()
    os.unlink(path)
    written = tracker.to_json()['other_metrics']['disk_write']
    assert 4 * MIB <= before and before <= written['main'] <= after
    assert written['combined'] == written['main']
    sections = [line[:-1] for line in str(tracker).splitlines() if line and not line.startswith(' ')]
    assert sections[:5] == ['Max RAM', 'Max GPU RAM', 'CPU utilization', 'GPU utilization', 'Compute time']
    assert 'Other metrics' in sections[5:]
