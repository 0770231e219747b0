# SPDX-License-Identifier: MIT
# gt-test: no-san: a Jupyter kernel calls the library as test_tracker.py, test_gpu.py do
"""The IPython extension's options for ipygpulogger's users, in a real
kernel through nbclient: the peak above the end of the cell, gc_collect,
empty_cache (torch played by a stand-in module), compact=off, the 7-tuple,
the reason there is no GPU, and GPU polling that sees a short spike (GPU
played by the fake NVML of tests/fakes)."""
import json
import os
import re

import pytest

from conftest import MIB, MB
from gpu_tracker import _lib
from test_notebook import run, lines

HUNDRED_MIB = 100 * MIB / MB  # 104.8576 MB


def peaked_over(output):
    return re.findall(r'peaked [0-9.]+ MB above (start|end),', output)


def test_peaked_above_the_start_or_the_end():
    out = run([
        '%load_ext gpu_tracker',
        'x = b"\\x01" * (100 * 2**20)',
        '%gpu_tracker peaked=end',
        'y = b"\\x01" * (100 * 2**20)',
        'z = b"\\x01" * (100 * 2**20)\ndel z',
        'import gpu_tracker\nprint("DATA", gpu_tracker.last_cell_usage().peaked_over)',
    ])
    # Kept: above the start it peaked by what it kept; above the end, by nothing.
    (_, _, consumed, peaked, _, _, _), = lines(out[1])
    assert peaked_over(out[1]) == ['start']
    assert HUNDRED_MIB * 0.97 <= float(peaked) <= HUNDRED_MIB + 30
    (_, _, consumed, peaked, _, _, _), = lines(out[3])
    assert peaked_over(out[3]) == ['end']
    assert HUNDRED_MIB * 0.97 <= float(consumed) and float(peaked) < 10
    # Freed before the end: ipygpulogger's peak is all of it.
    (_, _, consumed, peaked, _, _, _), = lines(out[4])
    assert abs(float(consumed)) < 30 and HUNDRED_MIB * 0.97 <= float(peaked) <= HUNDRED_MIB + 30
    assert 'DATA end' in out[5]


def test_gc_collect_counts_a_freed_cycle_as_freed():
    # Automatic collection off, so only the extension's gc.collect() can free
    # a cycle: with it the cycle's 100 MiB are given back in the cell that
    # drops it, without it they stay.
    out = run([
        'import gc\ngc.disable()\nclass Node: pass',
        '%load_ext gpu_tracker',
        'a = Node(); a.me = a; a.data = b"\\x01" * (100 * 2**20)',
        'del a',
        '%gpu_tracker gc_collect=off',
        'b = Node(); b.me = b; b.data = b"\\x01" * (100 * 2**20)',
        'del b',
    ])
    (_, _, consumed, _, _, _, _), = lines(out[3])
    assert float(consumed) <= -HUNDRED_MIB * 0.97
    (_, _, consumed, _, _, _, _), = lines(out[6])
    assert abs(float(consumed)) < 30


FAKE_TORCH = '''
import sys, types
class cuda:
    calls = 0
    @staticmethod
    def is_initialized(): return True
    @staticmethod
    def empty_cache(): cuda.calls += 1
torch = types.ModuleType('torch')
torch.cuda = cuda
sys.modules['torch'] = torch
'''


def test_empty_cache_before_each_measurement_where_torch_is_in_use():
    out = run([
        '%load_ext gpu_tracker',
        FAKE_TORCH,  # no torch before this cell: one call, after it
        'pass',      # before and after: 2
        'print("CALLS", cuda.calls)',  # before: 1 (4 so far), after: 1
        '%gpu_tracker empty_cache=off',  # before: 1; a cell that configures is not measured after
        'pass',                          # none
        'print("CALLS", cuda.calls)',
    ])
    assert re.findall(r'CALLS (\d+)', out[3] + out[6]) == ['4', '6']


def test_the_seven_fields_and_the_table():
    out = run([
        '%load_ext gpu_tracker',
        'x = b"\\x01" * (50 * 2**20)',
        'import gpu_tracker\nu = gpu_tracker.last_cell_usage()\n'
        'gen_used_delta, gen_peaked, gen_used, gpu_used_delta, gpu_peaked, gpu_used, time_delta = u\n'
        'print("DATA", [gen_used_delta, gen_peaked, gen_used, gpu_used_delta, gpu_peaked, gpu_used, time_delta] == '
        '[u.ram_consumed, u.ram_peaked, u.ram_used, u.gpu_ram_consumed, u.gpu_ram_peaked, u.gpu_ram_used, '
        'u.wall_time], len(u), u[6] == u.wall_time)',
        '%gpu_tracker compact=off',
        'y = b"\\x01" * (50 * 2**20)',
    ])
    assert 'DATA True 7 True' in out[2]
    table = out[4].splitlines()
    assert re.fullmatch(r'gpu-tracker: In \[5\] [0-9.]+ s, peaks above the start', table[0])
    assert table[1].split() == ['Consumed', 'Peaked', 'Used']
    ram = re.fullmatch(r'RAM: +(-?[0-9.]+) +([0-9.]+) +([0-9.]+) MB', table[2])
    assert ram and 50 * MIB / MB * 0.97 <= float(ram.group(1)) <= 50 * MIB / MB + 30
    assert table[3].startswith('GPU RAM: no GPU')


@pytest.fixture
def fake_nvml(tmp_path, monkeypatch):
    nvml = os.path.join(os.environ.get('GT_BUILD', 'build'), 'fakes', 'nvml.so')
    assert os.path.exists(nvml), f'{nvml} is built by `make test-fast`'
    monkeypatch.setenv('GT_NVML_LIBRARY', nvml)
    monkeypatch.setenv('GT_ROCM_SMI_LIBRARY', str(tmp_path / 'no-rocm-smi.so'))
    monkeypatch.setenv('FAKE_NVML_SCENARIO', str(tmp_path / 'nvml.json'))
    return lambda scenario: (tmp_path / 'nvml.json').write_text(json.dumps(scenario))


def test_why_there_is_no_gpu_is_said_once(fake_nvml):
    fake_nvml({'errors': {'nvmlInit_v2': 9}, 'devices': [{'uuid': 'GPU-x', 'total': 1}]})
    out = run(['%load_ext gpu_tracker', 'a = 1', 'b = 2',
               'import gpu_tracker\nprint("DATA", gpu_tracker.last_cell_usage().gpu_unavailable)'])
    assert lines(out[1])[0][-1] == 'no GPU: NVML: Driver Not Loaded'
    assert lines(out[2])[0][-1] == 'no GPU'
    assert 'DATA NVML: Driver Not Loaded' in out[3]


def test_no_gpu_library_at_all(tmp_path, monkeypatch):
    monkeypatch.setenv('GT_NVML_LIBRARY', str(tmp_path / 'no-nvml.so'))
    monkeypatch.setenv('GT_ROCM_SMI_LIBRARY', str(tmp_path / 'no-rocm-smi.so'))
    out = run(['%load_ext gpu_tracker', 'a = 1'])
    # Every brand the library takes is named; the Python package's two first.
    assert lines(out[1])[0][-1] == f'no GPU: no {" or ".join(b.upper() for b in _lib.gpu_brands())} GPU library installed'
    assert lines(out[1])[0][-1].startswith('no GPU: no NVIDIA or AMD')


def test_gpu_polling_sees_a_spike_between_samples(fake_nvml, tmp_path):
    # The process holds 500 MB of GPU memory for 0.3 s in the middle of a
    # cell; samples every 10 s (one at the start, one at the end) never see
    # it, polling every 1 ms does.
    spike = tmp_path / 'spike.pid'
    fake_nvml({'devices': [{'uuid': 'GPU-1', 'total': 16_000_000_000, 'samples': [
        {'used': 1, 'util': 0, 'compute': [{'pid_file': str(spike), 'mem': 500_000_000}]}]}]})
    cell = f'import os, time\nopen({str(spike)!r}, "w").write(str(os.getpid()))\ntime.sleep(0.3)\nos.remove({str(spike)!r})'
    out = run(['%load_ext gpu_tracker', '%gpu_tracker sleep_time=10', cell, '%gpu_tracker gpu_poll=off', cell])
    assert lines(out[2])[0][-1] == 'consumed 0.0 MB, peaked 500.0 MB above start, used 0.0 MB'
    assert lines(out[4])[0][-1] == 'consumed 0.0 MB, peaked 0.0 MB above start, used 0.0 MB'


def test_invalid_options_are_refused():
    from nbclient.exceptions import CellExecutionError
    for magic, message in (('peaked=top', "invalid peaked 'top': use start"),
                           ('gc_collect=1', "invalid gc_collect '1': use on or off"),
                           ('gpu_poll=0', "invalid gpu_poll '0': must be at least 0.001 seconds")):
        with pytest.raises(CellExecutionError) as error:
            run(['%load_ext gpu_tracker', f'%gpu_tracker {magic}'])
        assert message in str(error.value)


def test_the_extension_never_imports_torch():
    out = run(['%load_ext gpu_tracker', 'a = 1', 'import sys\nprint("TORCH", "torch" in sys.modules)'])
    assert 'TORCH False' in out[2]
