# SPDX-License-Identifier: MIT
"""Shared helpers of the Python package tests (run under Debian's python3
with python3-pytest; see tests/python/run.sh)."""
import math
import os
import subprocess
import sys
import time

import pytest

MIB = 1 << 20
MB = 1e6


@pytest.fixture(autouse=True)
def in_tmp_path(tmp_path, monkeypatch):
    """Every test runs in its own empty directory (default sub-tracking file
    names are relative to it)."""
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def rapl_tree(tmp_path, monkeypatch):
    """A fixture RAPL tree (one package domain) as the library's sysfs root, so
    that energy is measured whatever the machine: tracking files then have
    the energy columns."""
    zone = tmp_path / 'sys' / 'class' / 'powercap' / 'intel-rapl:0'
    zone.mkdir(parents=True)
    (zone / 'name').write_text('package-0\n')
    (zone / 'max_energy_range_uj').write_text('262143328850\n')
    (zone / 'energy_uj').write_text('1000000\n')
    monkeypatch.setenv('GT_SYSFS_ROOT', str(tmp_path / 'sys'))


@pytest.fixture
def no_rapl(tmp_path, monkeypatch):
    """No RAPL and no GPU library: no energy is measured, whatever the machine."""
    monkeypatch.setenv('GT_SYSFS_ROOT', str(tmp_path / 'no-sys'))
    monkeypatch.setenv('GT_NVML_LIBRARY', str(tmp_path / 'no-nvml.so'))
    monkeypatch.setenv('GT_ROCM_SMI_LIBRARY', str(tmp_path / 'no-rocm-smi.so'))


def wait_rows(tracking_file, n, limit=300):
    """Waits until the CSV tracking file has n more lines than now: n - 1
    samples at least taken wholly after the call, however slowly a loaded
    machine lets the tracker sample (the limit only says something is stuck)."""
    def lines():
        with open(tracking_file, 'rb') as f:
            return f.read().count(b'\n')
    want = lines() + n
    end = time.monotonic() + limit
    while lines() < want:
        assert time.monotonic() < end, f'{tracking_file}: no {n} more rows in {limit} s'
        time.sleep(0.01)


def c_program_env():
    """The environment for a C program of the build: without the sanitizer
    runtime preloaded for this interpreter (tests/python/run.sh), as a
    sanitizer build links its own."""
    return {k: v for k, v in os.environ.items() if k != 'LD_PRELOAD'}


def table_columns(energy=False):
    """The tracking file's timepoint columns as the metric table lays them
    out (tests/tools/columns.c, built beside the library): the Python
    package's, gpu-tracker's own, and the energy columns where energy is
    measured; the power columns that follow those are no part of it."""
    tool = os.path.join(os.environ.get('GT_BUILD', 'build'), 'tests', 'tools', 'columns')
    out = subprocess.run([tool] + (['--energy'] if energy else []), capture_output=True, text=True, check=True,
                         env=c_program_env())
    return out.stdout.strip().split(',')


def touch_mib(n):
    """n MiB whose every page is written, so all of it is resident."""
    return b'\x01' * (n * MIB)


def run_python(code, *args, env=None, timeout=120):
    """Runs code in a fresh interpreter (the one running the tests), returns
    the CompletedProcess; fails the test on a non-zero exit."""
    import subprocess
    proc = subprocess.run([sys.executable, '-c', code, *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=timeout)
    assert proc.returncode == 0, proc.stderr
    return proc


def assert_close(got, expected, where=''):
    """Equal JSON values, keys in the same order; floats to 12 significant
    digits (the statistics may differ from pandas' in the last bit)."""
    assert type(got) is type(expected) or {type(got), type(expected)} <= {int, float}, where
    if isinstance(expected, dict):
        assert list(got) == list(expected), where
        for k in expected:
            assert_close(got[k], expected[k], f'{where}/{k}')
    elif isinstance(expected, list):
        assert len(got) == len(expected), where
        for i, (g, e) in enumerate(zip(got, expected)):
            assert_close(g, e, f'{where}/{i}')
    elif isinstance(expected, float):
        assert math.isclose(got, expected, rel_tol=1e-12, abs_tol=1e-15), f'{where}: {got} != {expected}'
    else:
        assert got == expected, where
