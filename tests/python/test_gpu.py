# SPDX-License-Identifier: MIT
"""GPU figures through the Python package and the IPython extension, served
by the fake NVML library of tests/fakes (loaded through the library's real
dlopen path), whose scenario names the processes' GPU memory exactly."""
import csv
import json
import os

import pytest

import gpu_tracker as gput

FAKES = os.path.join(os.environ.get('GT_BUILD', 'build'), 'fakes')


@pytest.fixture
def fake_nvml(tmp_path, monkeypatch):
    """Writes the scenario (a dict) and points the library at the fake."""
    nvml = os.path.join(FAKES, 'nvml.so')
    assert os.path.exists(nvml), f'{nvml} is built by `make test-fast`'
    monkeypatch.setenv('GT_NVML_LIBRARY', nvml)
    monkeypatch.setenv('GT_ROCM_SMI_LIBRARY', str(tmp_path / 'no-rocm-smi.so'))
    monkeypatch.setenv('FAKE_NVML_SCENARIO', str(tmp_path / 'nvml.json'))

    def write(scenario):
        (tmp_path / 'nvml.json').write_text(json.dumps(scenario))
    return write


def device(uuid, pid_file, mem, used=5_000_000_000, util=30):
    return {'uuid': uuid, 'total': 16_000_000_000,
            'samples': [{'used': used, 'util': util, 'power_mw': 50_000,
                         'compute': [{'pid_file': str(pid_file), 'mem': mem, 'sm': 20}]}]}


def test_gpu_ram_of_this_process(fake_nvml, tmp_path):
    (tmp_path / 'me.pid').write_text(str(os.getpid()))
    fake_nvml({'devices': [device('GPU-1111-aaaa', tmp_path / 'me.pid', 300_000_000),
                           device('GPU-2222-bbbb', tmp_path / 'nobody.pid', 700_000_000, util=50)]})
    with gput.Tracker(sleep_time=0.01, gpu_ram_unit='megabytes') as tracker:
        pass
    usage = tracker.resource_usage
    assert usage.max_gpu_ram == gput.MaxGPURAM('megabytes', 32000.0, 10000.0, 300.0, 0.0, 300.0)
    assert usage.gpu_utilization == gput.GPUUtilization(2, 2, gput.Percentages(80.0, 40.0, 80.0, 40.0))
    report = tracker.to_json()
    assert report['gpu_process_utilization']['main']['max_sum_percent'] == 20.0
    assert report['gpu_power'] == {'unit': 'watts', 'max': 100.0, 'mean': 100.0}
    assert '\nGPU power:\n   Unit: watts\n   Max: 100.0\n' in str(tracker)
    with gput.Tracker(sleep_time=0.01, gpu_uuids={'GPU-2222-bbbb'}) as tracker:
        pass
    assert tracker.resource_usage.gpu_utilization.n_expected_gpus == 1
    assert tracker.resource_usage.gpu_utilization.gpu_percentages.max_sum_percent == 50.0


def test_per_process_gpu_columns(fake_nvml, tmp_path, monkeypatch):
    # Tracker(per_process=True) writes each process's GPU memory and SM
    # percent on every GPU, as --per-process does: this process's row names
    # the scenario's figures on the GPU that lists it, 0.0 on the other.
    monkeypatch.chdir(tmp_path)
    (tmp_path / 'me.pid').write_text(str(os.getpid()))
    fake_nvml({'devices': [device('GPU-1111-aaaa', tmp_path / 'me.pid', 300_000_000),
                           device('GPU-2222-bbbb', tmp_path / 'nobody.pid', 700_000_000)]})
    with gput.Tracker(sleep_time=0.01, gpu_ram_unit='megabytes', tracking_file='t.csv', per_process=True):
        pass
    rows = [r for r in csv.DictReader(open('t.processes.csv')) if int(r['pid']) == os.getpid()]
    assert rows
    for r in rows:
        assert (float(r['gpu0_ram']), float(r['gpu0_sm_percent'])) == (300.0, 20.0), r
        assert (float(r['gpu1_ram']), float(r['gpu1_sm_percent'])) == (0.0, 0.0), r


def test_unknown_gpu_uuid(fake_nvml, tmp_path):
    fake_nvml({'devices': [device('GPU-1111-aaaa', tmp_path / 'x.pid', 1)]})
    with pytest.raises(ValueError) as error:
        gput.Tracker(gpu_uuids=['GPU-nope'])
    assert str(error.value) == 'GPU UUID of GPU-nope is not valid. Available UUIDs are: GPU-1111-aaaa'


def test_notebook_line_with_gpu_ram(fake_nvml, tmp_path):
    from test_notebook import run, lines
    before, during = tmp_path / 'before.pid', tmp_path / 'during.pid'
    fake_nvml({'devices': [device('GPU-1111-aaaa', before, 300_000_000),
                           device('GPU-2222-bbbb', during, 500_000_000)]})
    write = 'import os\nopen({!r}, "w").write(str(os.getpid()))'
    out = run(['%load_ext gpu_tracker',
               write.format(str(before)),
               write.format(str(during)),
               f'os.remove({str(during)!r})',
               'import gpu_tracker\nu = gpu_tracker.last_cell_usage()\n'
               'print("DATA", u.gpu_ram_consumed, u.gpu_ram_peaked, u.gpu_ram_used, u.gpu_ram_unit)'])
    gpu = [lines(o)[0][-1] for o in out[1:4]]
    assert gpu == ['consumed 300.0 MB, peaked 300.0 MB above start, used 300.0 MB',
                   'consumed 500.0 MB, peaked 500.0 MB above start, used 800.0 MB',
                   'consumed -500.0 MB, peaked 0.0 MB above start, used 300.0 MB']
    data = [ln for ln in out[4].splitlines() if ln.startswith('DATA')][0].split()[1:]
    assert data == ['-500.0', '0.0', '300.0', 'megabytes']
