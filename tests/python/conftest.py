"""Shared helpers of the Python package tests (run under Debian's python3
with python3-pytest; see tests/python/run.sh)."""
import os
import sys

import pytest

MIB = 1 << 20
MB = 1e6


@pytest.fixture(autouse=True)
def in_tmp_path(tmp_path, monkeypatch):
    """Every test runs in its own empty directory (default sub-tracking file
    names are relative to it)."""
    monkeypatch.chdir(tmp_path)


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
