# SPDX-License-Identifier: MIT
# gt-test: no-san: a Jupyter kernel calls the library as test_tracker.py does
"""The IPython extension, run for real: a notebook executed headless by
nbclient in an ipykernel kernel (Debian's python3-nbclient and
python3-ipykernel), with a cell that allocates about 200 MB."""
import os
import re

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from conftest import MIB, MB

os.environ.setdefault('PYDEVD_DISABLE_FILE_VALIDATION', '1')  # the kernel's debugger warns on frozen modules

LINE = re.compile(r'^gpu-tracker: In \[(\d+)\] ([0-9.]+) s \| RAM: consumed (-?[0-9.]+) MB, peaked ([0-9.]+) MB above '
                  r'(?:start|end), used ([0-9.]+) MB(?:, Python heap peaked ([0-9.]+) MB)? \| GPU RAM: (.*)$', re.M)


def run(cells, timeout=120):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    NotebookClient(nb, timeout=timeout, kernel_name='python3', allow_errors=False).execute()
    return [''.join(o.get('text', '') for o in c.outputs if o.output_type == 'stream') for c in nb.cells]


def lines(output):
    return LINE.findall(output)


def test_a_line_after_every_cell_with_the_cells_memory():
    out = run([
        '%load_ext gpu_tracker',
        '%gpu_tracker sleep_time=0.02',
        'x = b"\\x01" * (200 * 2**20)\nimport time; time.sleep(0.1)',
        'import gpu_tracker\nu = gpu_tracker.last_cell_usage()\nprint("DATA", u.ram_consumed, u.ram_peaked, '
        'u.ram_used, u.wall_time, u.execution_count, u.ram_unit)',
        'del x',
        'y = b"\\x01" * (100 * 2**20)\ndel y',
        '%gpu_tracker kernel_peak=off',
        'y = b"\\x01" * (100 * 2**20)\ntime.sleep(0.5)\ndel y',
    ])
    assert out[0] == '' and out[1] == ''  # no line for the cells that load and configure it
    (count, wall, consumed, peaked, used, heap, gpu), = lines(out[2])
    assert count == '3' and heap == ''
    assert float(wall) >= 0.1
    assert 200 * MIB / MB * 0.97 <= float(consumed) <= 200 * MIB / MB + 30
    assert float(peaked) >= float(consumed) * 0.99
    assert float(used) >= float(consumed)
    assert gpu.startswith('no GPU') or gpu.startswith('consumed ')
    # The figures are data: the same numbers as the line, unrounded.
    data = [ln for ln in out[3].splitlines() if ln.startswith('DATA')][0].split()[1:]
    assert round(float(data[0]), 3) == float(consumed) and data[4:] == ['3', 'megabytes']
    # Freeing gives the memory back: a negative consumption.
    (_, _, consumed, _, _, _, _), = lines(out[4])
    assert float(consumed) <= -200 * MIB / MB * 0.9
    # 100 MiB allocated and freed at once: consumed ~0, but the kernel's
    # high-water mark, reset at the start of the cell, keeps its peak.
    (_, _, consumed, peaked, _, _, _), = lines(out[5])
    assert abs(float(consumed)) < 30
    assert float(peaked) >= 100 * MIB / MB * 0.97
    # Sampling alone (kernel_peak=off) sees a peak that lasts 0.5 s (25 samples).
    assert out[6] == ''
    (_, _, consumed, peaked, _, _, _), = lines(out[7])
    assert abs(float(consumed)) < 30
    assert float(peaked) >= 100 * MIB / MB * 0.9


def test_off_on_units_and_tracemalloc():
    out = run([
        '%load_ext gpu_tracker',
        '%gpu_tracker off',
        'a = 1',
        '%gpu_tracker on ram_unit=kilobytes tracemalloc=on',
        'z = [0.5 * i for i in range(10**6)]',
        '%gpu_tracker',
        '%gpu_tracker ram_unit=megabytes tracemalloc=off',
        'del z',
    ])
    assert out[2] == ''
    assert out[3] == ''  # the cell that turns it on was not tracked
    assert 'RAM: consumed' in out[4] and ' KB, peaked' in out[4]
    heap = re.search(r'Python heap peaked ([0-9.]+) KB', out[4])
    assert heap and float(heap.group(1)) >= 8 * 10**6 / 1e3  # a million pointers at least
    assert out[5] == ('gpu-tracker: on ram_unit=kilobytes gpu_ram_unit=megabytes sleep_time=0.1 '
                      'tracemalloc=on kernel_peak=on peaked=start gc_collect=on empty_cache=on compact=on '
                      'gpu_poll=0.001\n')
    assert 'Python heap' not in out[7] and ' MB, peaked' in out[7]


def test_invalid_settings_are_refused():
    with pytest.raises(CellExecutionError) as error:
        run(['%load_ext gpu_tracker', '%gpu_tracker ram_unit=mb'])
    assert "invalid ram_unit 'mb': valid units are bytes, kilobytes, megabytes, gigabytes, terabytes" \
        in str(error.value)
    with pytest.raises(CellExecutionError) as error:
        run(['%load_ext gpu_tracker', '%gpu_tracker sleep_time=0'])
    assert "invalid sleep_time '0': must be at least 0.001 seconds" in str(error.value)
    with pytest.raises(CellExecutionError) as error:
        run(['%load_ext gpu_tracker', '%gpu_tracker kernel_peak=yes'])
    assert "invalid kernel_peak 'yes': use on or off" in str(error.value)
    with pytest.raises(CellExecutionError) as error:
        run(['%load_ext gpu_tracker', '%gpu_tracker interval=1'])
    assert "unknown argument 'interval=1'" in str(error.value)
