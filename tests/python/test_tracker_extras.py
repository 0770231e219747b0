# SPDX-License-Identifier: MIT
"""What a Tracker adds for ResourceTracker's users: the Python heap's peak
(tracemalloc), peaks above the level at start, the report to a logger,
energy as data classes in a chosen unit, and PyTorch's allocator view of GPU
memory (torch played by a stand-in module: no GPU here)."""
import json
import logging
import os
import sys
import time

import pytest

import gpu_tracker as gput
from conftest import MIB, MB, touch_mib, run_python


def test_python_heap_peak_is_what_python_allocated_above_the_start():
    ballast = touch_mib(40)  # allocated before the start: not part of the peak
    with gput.Tracker(sleep_time=0.05, ram_unit='megabytes', python_heap=True) as tracker:
        x = touch_mib(30)
        del x
        y = touch_mib(10)
    usage = tracker.resource_usage
    assert usage.python_heap.unit == 'megabytes'
    # 30 MiB freed before 10 MiB more: the peak is the 30 MiB, not 40 or 70.
    assert 30 * MIB / MB <= usage.python_heap.peak <= 30 * MIB / MB + 1
    assert tracker.to_json()['python_heap'] == {'unit': 'megabytes', 'peak': usage.python_heap.peak}
    assert f'\nPython heap (tracemalloc):\n   Unit: megabytes\n   Peak: {round(usage.python_heap.peak, 3)}' \
        in str(tracker)
    import tracemalloc
    assert not tracemalloc.is_tracing()  # started by the tracker, so stopped by it
    del ballast, y


def test_python_heap_is_off_by_default_and_leaves_a_running_tracemalloc_running():
    with gput.Tracker(sleep_time=0.05) as tracker:
        pass
    assert tracker.resource_usage.python_heap is None and 'python_heap' not in tracker.to_json()
    assert 'Python heap' not in str(tracker)
    import tracemalloc
    tracemalloc.start()
    try:
        traced = touch_mib(20)  # traced, but before the start: not part of the peak
        with gput.Tracker(sleep_time=0.05, ram_unit='megabytes', python_heap=True) as tracker:
            x = touch_mib(5)
        assert 5 * MIB / MB <= tracker.resource_usage.python_heap.peak <= 5 * MIB / MB + 1
        assert tracemalloc.is_tracing()
        del traced, x
    finally:
        tracemalloc.stop()


def test_incremental_peak_is_the_peak_minus_the_level_at_start():
    ballast = touch_mib(100)
    with gput.Tracker(sleep_time=0.02, ram_unit='megabytes') as tracker:
        x = touch_mib(60)
        import time
        time.sleep(0.3)  # several samples see it
        del x
    usage = tracker.resource_usage
    inc = usage.incremental
    assert inc.ram_unit == 'megabytes' and inc.gpu_ram is None  # no GPU here
    # The absolute peak includes the 100 MiB ballast; the incremental one does not.
    assert usage.max_ram.combined.total_rss >= 160 * MIB / MB
    assert 60 * MIB / MB * 0.97 <= inc.ram <= 60 * MIB / MB + 20
    assert tracker.to_json()['incremental'] == {'ram_unit': 'megabytes', 'ram': inc.ram,
                                                'gpu_ram_unit': 'gigabytes', 'gpu_ram': None}
    text = str(tracker)
    assert f'\nIncremental peaks (peak minus the level at start):\n   RAM unit: megabytes\n' \
           f'   RAM: {round(inc.ram, 3)}' in text
    assert 'GPU RAM unit' not in text.split('Incremental peaks')[1]  # nothing to say without a GPU
    del ballast


def test_incremental_gpu_ram_from_the_fake_nvml(tmp_path, monkeypatch):
    fakes = os.path.join(os.environ.get('GT_BUILD', 'build'), 'fakes', 'nvml.so')
    assert os.path.exists(fakes), f'{fakes} is built by `make test-fast`'
    # The process's GPU memory is 300 MB while before.pid names it, 500 MB
    # more while during.pid does: the level at start is 300, the peak 800.
    (tmp_path / 'before.pid').write_text(str(os.getpid()))
    dev = lambda uuid, pid_file, mem: {'uuid': uuid, 'total': 16_000_000_000, 'samples': [
        {'used': 1, 'util': 0, 'compute': [{'pid_file': str(pid_file), 'mem': mem}]}]}
    (tmp_path / 'nvml.json').write_text(json.dumps({'devices': [dev('GPU-a', tmp_path / 'before.pid', 300_000_000),
                                                                dev('GPU-b', tmp_path / 'during.pid', 500_000_000)]}))
    monkeypatch.setenv('GT_NVML_LIBRARY', fakes)
    monkeypatch.setenv('GT_ROCM_SMI_LIBRARY', str(tmp_path / 'none.so'))
    monkeypatch.setenv('FAKE_NVML_SCENARIO', str(tmp_path / 'nvml.json'))
    with gput.Tracker(sleep_time=0.01, gpu_ram_unit='megabytes') as tracker:
        (tmp_path / 'during.pid').write_text(str(os.getpid()))
        import time
        time.sleep(0.1)
        os.remove(tmp_path / 'during.pid')
    usage = tracker.resource_usage
    assert usage.max_gpu_ram.combined == 800.0
    assert usage.incremental.gpu_ram == 500.0 and usage.incremental.gpu_ram_unit == 'megabytes'
    assert '\n   GPU RAM unit: megabytes\n   GPU RAM: 500.0' in str(tracker)


def test_the_report_goes_to_the_logger_at_stop(caplog):
    logger = logging.getLogger('my.experiment')
    with caplog.at_level(logging.INFO, logger='my.experiment'):
        tracker = gput.Tracker(sleep_time=0.05, logger=logger)
        tracker.start()
        assert [r for r in caplog.records if r.name == 'my.experiment'] == []  # at stop, not before
        tracker.stop()
    (record,), = [[r for r in caplog.records if r.name == 'my.experiment']]
    assert record.levelno == logging.INFO
    assert record.getMessage() == str(tracker).rstrip('\n')
    assert record.getMessage().startswith('Max RAM:\n')


def test_logger_must_be_a_logger():
    with pytest.raises(TypeError, match='logger must be a logging.Logger, not builtin_function_or_method'):
        gput.Tracker(logger=print)


@pytest.mark.parametrize('budget', [-1, 0, 100.5, float('nan'), True, '5'])
def test_walk_budget_out_of_range_is_refused(budget):
    with pytest.raises(ValueError, match='walk_budget of .* is invalid: must be a percent of one core, above 0 and '
                                         'at most 100'):
        gput.Tracker(walk_budget=budget)


@pytest.mark.parametrize('budget', [5, 0.000001, 100])
def test_walk_budget_in_percent_is_accepted(budget):
    # The percent reaches the library as a share: 5 passed on unconverted
    # would be five cores, which it refuses.
    # Sampled totals (the event backend's would be the kernel's, which no
    # sampled split adds up to).
    with gput.Tracker(sleep_time=0.02, ram_unit='megabytes', walk_budget=budget, events='off') as tracker:
        data = touch_mib(20)
        time.sleep(0.1)
        del data
    ram = tracker.resource_usage.max_ram.main
    assert ram.total_rss >= 20 * 1.048576
    # Each is its own maximum over the samples (the Python package's rule),
    # so their sum is at least the largest total, and neither is above it.
    assert ram.private_rss + ram.shared_rss >= ram.total_rss - 1e-9
    assert ram.private_rss <= ram.total_rss + 1e-9 and ram.shared_rss <= ram.total_rss + 1e-9


def _rapl(root, package_uj, dram_uj):
    for zone, name, value in (('intel-rapl:0', 'package-0', package_uj), ('intel-rapl:0:0', 'dram', dram_uj)):
        d = root / 'class' / 'powercap' / zone
        d.mkdir(parents=True, exist_ok=True)
        (d / 'name').write_text(name + '\n')
        (d / 'max_energy_range_uj').write_text('262143328850\n')
        (d / 'energy_uj').write_text(f'{value}\n')


@pytest.mark.parametrize('unit, factor', [('joules', 1.0), ('kilojoules', 1e-3), ('watt-hours', 1 / 3600)])
def test_energy_as_data_classes_in_the_chosen_unit(tmp_path, monkeypatch, unit, factor):
    sys_root = tmp_path / 'sys'
    _rapl(sys_root, 1_000_000, 2_000_000)
    monkeypatch.setenv('GT_SYSFS_ROOT', str(sys_root))
    with gput.Tracker(sleep_time=0.05, energy_unit=unit) as tracker:
        _rapl(sys_root, 8_200_000, 5_600_000)  # +7.2 J and +3.6 J, as the kernel would count
    energy = tracker.resource_usage.energy
    assert isinstance(energy, gput.Energy) and energy.unit == unit
    assert energy.cpu.unavailable is None and energy.gpu is None
    assert set(energy.cpu.domains) == {'package-0', 'package-0:dram'}
    package, dram = energy.cpu.domains['package-0'], energy.cpu.domains['package-0:dram']
    assert isinstance(package, gput.EnergyDomain) and package.source == 'rapl'
    assert package.energy == pytest.approx(7.2 * factor, rel=1e-12)
    assert dram.energy == pytest.approx(3.6 * factor, rel=1e-12)
    assert tracker.to_json()['energy']['unit'] == unit


def test_energy_unavailable_says_why_where_energy_is_asked_for(tmp_path, monkeypatch, caplog):
    # Nothing measured: no energy figures (as no Energy section).  The
    # reason is a warning where energy was asked for (an energy unit given),
    # said once; a Tracker that did not ask says nothing above debug level,
    # as the Python package, which measures no energy, says nothing.
    monkeypatch.setenv('GT_SYSFS_ROOT', str(tmp_path / 'none'))
    for kwargs, warned in (({}, 0), ({'energy_unit': 'joules'}, 1), ({'energy_unit': 'watt-hours'}, 1)):
        caplog.clear()
        with caplog.at_level('DEBUG', logger='gpu_tracker'):
            with gput.Tracker(sleep_time=0.05, **kwargs) as tracker:
                pass
        assert tracker.resource_usage.energy is None and 'energy' not in tracker.to_json()
        said = [r for r in caplog.records if 'energy is not measured' in r.getMessage()]
        assert len(said) == 1 and 'no RAPL energy counters' in said[0].getMessage()
        assert [r.levelno for r in said] == [logging.WARNING if warned else logging.DEBUG], kwargs
    with pytest.raises(ValueError, match='"calories" is not a valid energy unit. Valid values are joules, '
                                         'kilojoules, kilowatt-hours, watt-hours'):
        gput.Tracker(energy_unit='calories')


# A stand-in for torch with CUDA: two devices whose allocator counters the
# test sets, the calls it receives recorded.
FAKE_TORCH = '''
import sys, types
calls = []
class cuda:
    allocated = {0: 100_000_000, 1: 0}
    peak = {0: 100_000_000, 1: 0}
    @staticmethod
    def is_initialized(): return True
    @staticmethod
    def device_count(): return 2
    @staticmethod
    def memory_allocated(i): return cuda.allocated[i]
    @staticmethod
    def max_memory_allocated(i): return cuda.peak[i]
    @staticmethod
    def empty_cache(): calls.append('empty_cache')
torch = types.ModuleType('torch')
torch.cuda = cuda
torch.calls = calls
sys.modules['torch'] = torch
'''


def test_torch_allocator_view_beside_nvml():
    out = run_python(FAKE_TORCH + '''
import json, gpu_tracker as gput
with gput.Tracker(sleep_time=0.05, gpu_ram_unit='megabytes') as tracker:
    cuda.allocated = {0: 400_000_000, 1: 50_000_000}
    cuda.peak = {0: 900_000_000, 1: 50_000_000}
print(json.dumps(tracker.to_json()['torch_cuda_memory']))
print(repr(tracker.resource_usage.torch_cuda_memory[0]))
print(str(tracker).split('PyTorch CUDA allocator')[1])
''').stdout.splitlines()
    assert json.loads(out[0]) == {
        'device_0': {'unit': 'megabytes', 'max_allocated': 900.0, 'allocated_at_start': 100.0,
                     'allocated_at_stop': 400.0, 'incremental_peak': 800.0},
        'device_1': {'unit': 'megabytes', 'max_allocated': 50.0, 'allocated_at_start': 0.0,
                     'allocated_at_stop': 50.0, 'incremental_peak': 50.0}}
    assert out[1] == ("TorchCUDAMemory(device=0, unit='megabytes', max_allocated=900.0, allocated_at_start=100.0, "
                      "allocated_at_stop=400.0, incremental_peak=800.0)")
    assert out[2:5] == [' (torch.cuda.max_memory_allocated):', '   Device 0:', '      Unit: megabytes']


def test_no_torch_view_when_cuda_is_not_initialized_and_torch_is_never_imported():
    out = run_python(FAKE_TORCH + '''
cuda.is_initialized = staticmethod(lambda: False)
import gpu_tracker as gput
with gput.Tracker(sleep_time=0.05) as tracker:
    pass
print(tracker.resource_usage.torch_cuda_memory, 'torch_cuda_memory' in tracker.to_json(), torch.calls)
''').stdout.split()
    assert out == ['None', 'False', '[]']
    # Without a model, the package never imports torch, installed or not.
    out = run_python('''
import sys, gpu_tracker as gput
with gput.Tracker(sleep_time=0.05, python_heap=True) as tracker:
    pass
str(tracker); tracker.to_json()
print('torch' in sys.modules)
''').stdout.split()
    assert out == ['False']


def test_an_odd_torch_costs_its_own_figures_not_the_report():
    # A torch whose CUDA says it is initialized but lacks the allocator's
    # functions (a stub, or a version without them).
    out = run_python('''
import sys, types
torch = types.ModuleType('torch')
torch.cuda = types.SimpleNamespace(is_initialized=lambda: True)
sys.modules['torch'] = torch
import gpu_tracker as gput
with gput.Tracker(sleep_time=0.05) as tracker:
    pass
print(tracker.resource_usage.torch_cuda_memory, tracker.resource_usage.max_ram.unit)
''').stdout.split()
    assert out == ['None', 'gigabytes']


@pytest.mark.parametrize('mode', ['yes', '', None, 1])
def test_events_mode_must_be_named(mode):
    with pytest.raises(ValueError, match="events of .* is invalid: valid values are 'auto', 'on', 'off'"):
        gput.Tracker(events=mode)


def test_events_off_is_sampled_and_says_why():
    with gput.Tracker(sleep_time=0.02, ram_unit='megabytes', events='off') as tracker:
        data = touch_mib(20)
        time.sleep(0.05)
        del data
    method = tracker.to_json()['max_ram_method']
    assert [method['main'], method['descendants'], method['combined']] == ['lower bound (sampled)'] * 3
    assert method['reason'] == 'the event backend is off (events off)'


def test_events_on_tracks_the_python_process_exactly():
    # The Tracker's own process: its memory is known from its first memory
    # event, and the peak of main is what it wrote, whatever the samples saw.
    try:
        tracker = gput.Tracker(sleep_time=10, ram_unit='bytes', events='on')
    except OSError as e:
        pytest.skip(f'the event backend cannot run here: {e}')
    with tracker:
        data = touch_mib(60)
        level = int(open('/proc/self/statm').read().split()[1]) * os.sysconf('SC_PAGESIZE')
        del data
    method = tracker.to_json()['max_ram_method']
    assert method['main'] == 'exact (kernel events)', method
    # Children this process started before (earlier tests in the same
    # pytest run) were not followed from their birth: then the combined
    # total is a lower bound that says why.
    assert (method['combined'] == 'exact (kernel events)' or
            'running before tracking began' in method.get('reason', '')), method
    # One sample at the start, one at the stop (after the 60 MiB were freed):
    # only the events can see the level in between.
    assert tracker.resource_usage.max_ram.main.total_rss >= level - 3 * method['bound_per_process']
