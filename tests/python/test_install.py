"""The package installs offline with pip into a virtual environment and then
works from anywhere, with the library copied in by `make python`."""
import os
import shutil
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))


def test_offline_install_into_a_venv(tmp_path):
    src = tmp_path / 'src'
    shutil.copytree(os.path.join(ROOT, 'python'), src,
                    ignore=shutil.ignore_patterns('build', '*.egg-info', '__pycache__', 'libgputracker.so'))
    # What `make python` does, from the library under test.
    shutil.copy(os.environ['GPU_TRACKER_LIB'], src / 'gpu_tracker' / 'libgputracker.so')
    venv = tmp_path / 'venv'
    subprocess.run([sys.executable, '-m', 'venv', '--system-site-packages', '--without-pip', str(venv)], check=True)
    python = str(venv / 'bin' / 'python')
    env = {k: v for k, v in os.environ.items() if k not in ('PYTHONPATH', 'GPU_TRACKER_LIB')}
    env['PIP_NO_INDEX'] = '1'  # offline: nothing may be fetched
    install = subprocess.run([python, '-m', 'pip', 'install', '--no-build-isolation', '--no-deps', str(src)],
                             capture_output=True, text=True, env=env, cwd=tmp_path)
    assert install.returncode == 0, install.stdout + install.stderr
    code = ('import gpu_tracker as g, gpu_tracker._lib as l\n'
            'with g.Tracker(sleep_time=0.01, disable_logs=True) as t: pass\n'
            'print(l.library_path); print(t.resource_usage.compute_time.unit)')
    run = subprocess.run([python, '-c', code], capture_output=True, text=True, env=env, cwd='/')
    assert run.returncode == 0, run.stderr
    path, unit = run.stdout.split()
    assert path.startswith(str(venv)) and path.endswith('gpu_tracker/libgputracker.so')
    assert unit == 'hours'


def test_a_missing_library_is_a_clear_import_error(tmp_path):
    env = {**os.environ, 'GPU_TRACKER_LIB': str(tmp_path / 'nowhere.so')}
    run = subprocess.run([sys.executable, '-c', 'import gpu_tracker'], capture_output=True, text=True, env=env)
    assert run.returncode != 0
    assert 'cannot load the gpu-tracker C library libgputracker.so' in run.stderr
    assert 'nowhere.so (not found)' in run.stderr
