# SPDX-License-Identifier: MIT
# gt-test: no-san: packaging (a wheel, pip into a virtual environment) of the same library
"""The package builds a platform wheel and installs offline with pip into a
virtual environment, then works from anywhere, with the library copied in by
`make python`."""
import os
import shutil
import subprocess
import sysconfig
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))


def version():
    """MAJOR.MINOR.PATCH from the GT_VERSION_* macros of the public header."""
    import re
    with open(os.path.join(ROOT, 'include', 'gpu_tracker.h')) as f:
        parts = dict(re.findall(r'^#define GT_VERSION_(MAJOR|MINOR|PATCH) (\d+)$', f.read(), re.M))
    return '{MAJOR}.{MINOR}.{PATCH}'.format(**parts)


def test_offline_install_into_a_venv(tmp_path):
    src = tmp_path / 'src'
    shutil.copytree(os.path.join(ROOT, 'python'), src,
                    ignore=shutil.ignore_patterns('build', '*.egg-info', '__pycache__', 'libgputracker.so'))
    # What `make python` does, from the production library of the build under test.
    shutil.copy(os.path.join(os.environ['GT_BUILD'], 'libgputracker.so'), src / 'gpu_tracker' / 'libgputracker.so')
    venv = tmp_path / 'venv'
    subprocess.run([sys.executable, '-m', 'venv', '--system-site-packages', '--without-pip', str(venv)], check=True)
    python = str(venv / 'bin' / 'python')
    env = {k: v for k, v in os.environ.items() if k not in ('PYTHONPATH', 'GPU_TRACKER_LIB')}
    env['PIP_NO_INDEX'] = '1'  # offline: nothing may be fetched
    dist = tmp_path / 'dist'
    wheel = subprocess.run([python, '-m', 'pip', 'wheel', '--no-build-isolation', '--no-deps', '-w', str(dist),
                            str(src)], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert wheel.returncode == 0, wheel.stdout + wheel.stderr
    # The wheel holds a native library: for any Python 3, on this platform only.
    platform = sysconfig.get_platform().replace('-', '_').replace('.', '_')
    [built] = os.listdir(dist)
    assert built == f'gpu_tracker-{version()}-py3-none-{platform}.whl'
    install = subprocess.run([python, '-m', 'pip', 'install', '--no-deps', str(dist / built)],
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


FAKE = os.path.join(os.environ['GT_BUILD'], 'fakes', 'gputracker_version.so')


def import_error(lib, **env):
    """stderr of `import gpu_tracker` bound to the library lib, which must fail."""
    assert os.path.exists(lib), f'{lib} is built by `make test-fast`'
    run = subprocess.run([sys.executable, '-c', 'import gpu_tracker'], capture_output=True, text=True,
                         env={**os.environ, 'GPU_TRACKER_LIB': lib, **env})
    assert run.returncode != 0
    return run.stderr.strip().splitlines()[-1]


def test_the_package_library_and_header_are_one_version():
    import gpu_tracker
    from gpu_tracker import _lib
    assert gpu_tracker.__version__ == version()
    assert _lib.lib.gt_version() == version().encode()


def test_a_library_of_another_version_is_refused(tmp_path):
    error = import_error(FAKE)
    assert error.startswith('ImportError: gpu_tracker: the C library ')
    assert f'{os.path.realpath(FAKE)} is 0.0.1, but this gpu_tracker package {version()} needs ' \
        f'libgputracker {version()}' in error


def test_a_library_without_gt_version_is_refused(tmp_path):
    # Any library without gt_version(): the fake NVML.
    nvml = os.path.join(os.path.dirname(FAKE), 'nvml.so')
    error = import_error(nvml)
    assert f'{os.path.realpath(nvml)} is a version without gt_version(), but this gpu_tracker package' in error


def test_a_library_of_the_same_version_passes_the_check(tmp_path):
    # The fake saying the right version gets past the check, to the first
    # function it lacks.
    error = import_error(FAKE, GT_FAKE_VERSION=version())
    assert error == f'ImportError: gpu_tracker: {os.path.realpath(FAKE)} lacks the function gt_strerror'
