# SPDX-License-Identifier: MIT
"""Sub-tracking, analysis and comparison through the Python API: a function
sub-tracked over several calls and analyzed, the reference files of the
Python package (exact results), combining per-process files, comparing two
sessions, and the results without pandas."""
import csv
import errno
import json
import multiprocessing as mp
import os
import pickle
import shutil
import sys
import time

import pytest

import gpu_tracker as gput
from conftest import MIB, assert_close, touch_mib, run_python, wait_rows

REF = os.environ.get('GT_REF', os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'reference'))
SUB = os.path.join(REF, 'sub-tracking')
THIS_FILE = os.path.abspath(__file__)


def rows(path):
    return list(csv.reader(open(path)))


# The decorator's default name, as the Python package's: the defining file's absolute path.
FUNCTION = f'{THIS_FILE}:allocate'


@gput.sub_track(sub_tracking_file='functions.csv')
def allocate(n_mib, tracking_file):
    # At least 0.15 s, and until two samples were taken wholly inside the
    # call, however slowly a loaded machine samples.
    data = touch_mib(n_mib)
    time.sleep(0.15)
    wait_rows(tracking_file, 3)
    del data


def run_session(tracking_file, sub_tracking_file, sizes=(20, 40, 60)):
    with gput.Tracker(sleep_time=0.02, tracking_file=tracking_file, ram_unit='megabytes', time_unit='seconds'):
        for n in sizes:
            allocate(n, tracking_file)
            with gput.SubTracker(code_block_name='pause', sub_tracking_file=sub_tracking_file):
                time.sleep(0.1)


def test_a_function_called_several_times_is_analyzed(rapl_tree):
    run_session('tracking.csv', 'functions.csv')
    marks = rows('functions.csv')
    assert marks[0] == ['process_id', 'code_block_name', 'position', 'timestamp']
    function = FUNCTION
    assert [(r[0], r[1], r[2]) for r in marks[1:]] == \
        [(str(os.getpid()), name, pos) for name in (function, 'pause') for pos in '01'] * 3
    results = gput.SubTrackingAnalyzer(tracking_file='tracking.csv', sub_tracking_file='functions.csv') \
        .sub_tracking_results()
    by_name = {b.name: b for b in results.code_block_results}
    assert set(by_name) == {function, 'pause'}
    block = by_name[function]
    assert block.num_calls == 3 and block.num_non_empty_calls == 3 and block.num_timepoints >= 3
    ct = block.compute_time
    assert ct['min'] >= 0.15 and ct['total'] >= 0.45 and ct['min'] <= ct['mean'] <= ct['max']
    # The largest call held 60 MiB more than the smallest held 20 MiB.
    ram = block.resource_usage
    main_max = ram.loc['main_ram', 'max'] if hasattr(ram, 'loc') else ram['main_ram']['max']
    main_min = ram.loc['main_ram', 'min'] if hasattr(ram, 'loc') else ram['main_ram']['min']
    assert main_max - main_min >= 40 * MIB / 1e6 * 0.9
    assert by_name['pause'].num_calls == 3
    assert str(results).startswith('Overall:\n')
    j = results.to_json()
    # The Python package's keys, then gpu-tracker's energy from the tracking file's energy columns.
    assert list(j) == ['overall', 'static_data', 'code_block_results', 'energy']
    assert j['static_data']['ram_unit'] == 'megabytes'


def test_default_names_and_files():
    line = sys._getframe().f_lineno + 1
    with gput.SubTracker() as block:
        pass
    assert block.code_block_name == f'{os.path.relpath(THIS_FILE)}:{line}'
    assert block.sub_tracking_file == f'{os.getpid()}.csv'
    assert [r[1:3] for r in rows(f'{os.getpid()}.csv')[1:]] == [[block.code_block_name, '0'],
                                                                [block.code_block_name, '1']]


def test_default_name_on_a_multi_node_run(monkeypatch):
    """Process IDs repeat across nodes: under Slurm the default name has the
    node's name in front, so ranks of two nodes never share a file."""
    monkeypatch.setenv('SLURM_JOB_ID', '42')
    monkeypatch.setenv('SLURMD_NODENAME', 'n3')
    with gput.SubTracker('X') as block:
        pass
    assert block.sub_tracking_file == f'n3-{os.getpid()}.csv'
    assert rows(f'n3-{os.getpid()}.csv')[1][1:] == ['X', '0', rows(f'n3-{os.getpid()}.csv')[1][3], 'n3']


def test_code_block_attribute_and_process_id():
    block = gput.SubTracker(None, 'my-attribute', 'attr.csv')  # positional, in the package's order
    assert block.code_block_name == f'{os.path.relpath(THIS_FILE)}:my-attribute'
    assert block.sub_tracking_file == 'attr.csv' and block.process_id == os.getpid()
    assert not os.path.exists('attr.csv')  # created on entering, as the package does
    with block:
        pass
    assert os.path.exists('attr.csv')
    named = gput.SubTracker(code_block_name='named', code_block_attribute='ignored', sub_tracking_file='attr.csv')
    assert named.code_block_name == 'named'
    line = sys._getframe().f_lineno + 1
    assert gput.SubTracker(sub_tracking_file='x.csv').code_block_name == f'{os.path.relpath(THIS_FILE)}:{line}'
    with pytest.raises(ValueError, match='Valid file extensions are ".csv" and ".sqlite"'):
        gput.SubTracker(sub_tracking_file='x.txt')

    @gput.sub_track(code_block_attribute='my-attribute', sub_tracking_file='deco.csv')
    def decorated(a, b=1):
        return a + b

    @gput.sub_track(None, None, 'deco.csv')
    def plain():
        return 0

    assert decorated(1, b=2) == 3 and plain() == 0
    assert [r[1] for r in rows('deco.csv')[1:]] == [f'{THIS_FILE}:my-attribute'] * 2 + [f'{THIS_FILE}:plain'] * 2


def test_existing_files_and_overwrite():
    open('marks.csv', 'w').write('kept\n')
    block = gput.SubTracker(code_block_name='a', sub_tracking_file='marks.csv')  # the file is taken on entering
    with pytest.raises(FileExistsError, match='marks.csv'):
        with block:
            pass  # pragma: no cover
    assert open('marks.csv').read() == 'kept\n'
    with gput.SubTracker(code_block_name='a', sub_tracking_file='marks.csv', overwrite=True):
        pass
    # Later SubTrackers of the same file in this process add to it, overwrite or not.
    for overwrite in (True, False):
        with gput.SubTracker(code_block_name='b', sub_tracking_file='marks.csv', overwrite=overwrite):
            pass
    assert [r[1] for r in rows('marks.csv')[1:]] == ['a', 'a', 'b', 'b', 'b', 'b']
    # A file removed since is an error, in the package's words (its test_overwrite).
    os.remove('marks.csv')
    with pytest.raises(FileNotFoundError) as error:
        with gput.SubTracker(code_block_name='c', sub_tracking_file='marks.csv'):
            pass  # pragma: no cover
    assert str(error.value) == 'The file marks.csv was removed in the middle of writing data to it.'
    open('repeat-file.csv', 'w').close()
    with pytest.raises(FileExistsError) as error:
        with gput.SubTracker(sub_tracking_file='repeat-file.csv'):
            pass  # pragma: no cover
    assert str(error.value) == ('File repeat-file.csv already exists. Set overwrite to True to overwrite the '
                                'existing file.')


@pytest.mark.parametrize('ext', ['csv', 'sqlite'])
def test_reference_files_give_the_reference_results(ext):
    results = gput.SubTrackingAnalyzer(os.path.join(SUB, f'tracking.{ext}'),
                                       os.path.join(SUB, f'sub-tracking.{ext}')).sub_tracking_results()
    assert_close(results.to_json(), json.load(open(os.path.join(SUB, 'results.json'))))
    assert str(results) == open(os.path.join(SUB, 'results.txt')).read()
    block = results.code_block_results[0]
    assert (block.name, block.num_calls) == ('X', 10)


def test_invalid_sub_tracking_files_are_refused():
    # The package's words from sub_tracking_results() too, which pairs the marks as load_timestamp_pairs() does.
    for name, message in (('invalid1.csv', INVALID1), ('invalid2.csv', INVALID2)):
        with pytest.raises(ValueError) as error:
            gput.SubTrackingAnalyzer(os.path.join(SUB, 'tracking.csv'),
                                     os.path.join(SUB, name)).sub_tracking_results()
        assert str(error.value) == message


@pytest.mark.parametrize('ext', ['csv', 'sqlite'])
def test_a_missing_input_file_is_file_not_found(ext):
    # FileNotFoundError, as the package raises it (pandas' words), so that
    # `except FileNotFoundError` catches it.
    marks = os.path.join(SUB, f'sub-tracking.{ext}')
    calls = {
        'tracking file': (f'missing.{ext}', lambda: gput.SubTrackingAnalyzer(f'missing.{ext}', marks)
                          .sub_tracking_results()),
        'sub-tracking file': (f'none.{ext}', lambda: gput.SubTrackingAnalyzer(os.path.join(SUB, f'tracking.{ext}'),
                                                                              f'none.{ext}').sub_tracking_results()),
        'pairs': (f'none.{ext}', lambda: gput.SubTrackingAnalyzer(None, f'none.{ext}').load_timestamp_pairs('X')),
        'combine': (f'gone.{ext}', lambda: gput.SubTrackingAnalyzer(None, f'out.{ext}')
                    .combine_sub_tracking_files([marks, f'gone.{ext}'])),
    }
    for what, (path, call) in calls.items():
        with pytest.raises(FileNotFoundError) as error:
            call()
        assert (error.value.errno, error.value.filename) == (errno.ENOENT, path), what
        assert str(error.value) == f"[Errno 2] No such file or directory: '{path}'", what
    assert not os.path.exists(f'out.{ext}')


@pytest.mark.parametrize('ext', ['csv', 'sqlite'])
def test_combine_per_process_files(ext):
    src = os.path.join(SUB, 'files-to-combine')
    os.mkdir('parts')
    for f in os.listdir(src):
        if f.endswith('.' + ext):
            shutil.copy(os.path.join(src, f), 'parts')
    gput.SubTrackingAnalyzer(None, f'combined.{ext}').combine_sub_tracking_files('parts')
    parts = sorted(os.path.join('parts', f) for f in os.listdir('parts'))
    gput.SubTrackingAnalyzer(None, f'listed.{ext}').combine_sub_tracking_files(parts)
    if ext == 'csv':
        expected = sum(len(rows(p)) - 1 for p in parts)
        assert len(rows('combined.csv')) - 1 == expected == len(rows('listed.csv')) - 1
    results = gput.SubTrackingAnalyzer(os.path.join(SUB, f'tracking.{ext}'), f'combined.{ext}') \
        .sub_tracking_results()
    assert_close(results.to_json(), json.load(open(os.path.join(SUB, 'results.json'))))
    # The Python package's errors, word for word.
    with pytest.raises(ValueError) as error:
        gput.SubTrackingAnalyzer(None, f'combined.{ext}').combine_sub_tracking_files(parts)
    assert str(error.value) == f'Cannot create sub-tracking file combined.{ext}. File already exists.'
    other = 'sqlite' if ext == 'csv' else 'csv'
    with pytest.raises(ValueError) as error:
        gput.SubTrackingAnalyzer(None, f'wrong-extension.{other}').combine_sub_tracking_files(parts)
    assert str(error.value) == (f'File {parts[0]} does not end with the same extension as wrong-extension.{other}. '
                                f'Must end in ".{other}".')
    # A directory: its sub-tracking files only, not what SQLite or a run leaves beside them.
    for junk in (f'parts/x.{ext}-shm', f'parts/x.{ext}-journal', 'parts/notes.txt'):
        open(junk, 'w').close()
    gput.SubTrackingAnalyzer(None, f'again.{ext}').combine_sub_tracking_files('parts')


def test_two_real_sessions_compared():
    for name, sizes in (('one', (20, 20, 20)), ('two', (60, 60, 60))):
        run_session(f'{name}.csv', 'functions.csv', sizes)
        results = gput.SubTrackingAnalyzer(f'{name}.csv', 'functions.csv').sub_tracking_results()
        if name == 'one':  # stored as the Python package's documentation does
            with open('one.pkl', 'wb') as f:
                pickle.dump(results, f)
        else:
            json.dump(results.to_json(), open(f'{name}.json', 'w'))
        # The marks file is kept (removing it under the decorator is an error,
        # as in the package): the second session's calls are added to it, and
        # only its own tracking file's timepoints fall inside them.
    results = gput.TrackingComparison({'one': 'one.pkl', 'two': 'two.json'}).compare(statistic='max')
    function = FUNCTION
    main = results.code_block_resource_usage['main_ram'][function]
    assert main['two'] - main['one'] >= 40 * MIB / 1e6 * 0.9
    assert list(main.keys()) == ['one', 'two']  # smallest first


def _worker(i):
    with gput.SubTracker(code_block_name='work'):  # default file: <pid>.csv
        time.sleep(0.05)
    return os.getpid()


def _sqlite_worker(i):
    with gput.SubTracker(code_block_name='work', sub_tracking_file=f'{os.getpid()}.sqlite'):
        time.sleep(0.02)
    return os.getpid()


def test_sqlite_files_of_pool_workers_are_whole():
    # Workers of a Pool end without running atexit (os._exit) or are
    # terminated when the with block ends: each file must be complete anyway.
    os.mkdir('w')
    os.chdir('w')
    with mp.get_context('fork').Pool(2) as pool:
        pids = set(pool.map(_sqlite_worker, range(6)))
    assert sorted(os.listdir('.')) == sorted(f'{p}.sqlite' for p in pids)
    os.mkdir('../copies')
    for p in pids:  # a copy of the .sqlite alone holds the marks
        shutil.copy(f'{p}.sqlite', '../copies')
    os.chdir('..')
    analyzer = gput.SubTrackingAnalyzer(None, 'all.sqlite')
    analyzer.combine_sub_tracking_files('copies')
    assert len(analyzer.load_timestamp_pairs('work')) == 6


def test_blocks_in_worker_processes_combined():
    with gput.Tracker(sleep_time=0.02, tracking_file='tracking.csv'):
        with mp.get_context('fork').Pool(2) as pool:
            pids = set(pool.map(_worker, range(4)))
    analyzer = gput.SubTrackingAnalyzer('tracking.csv', 'all.csv')
    analyzer.combine_sub_tracking_files([f'{p}.csv' for p in sorted(pids)])
    block, = analyzer.sub_tracking_results().code_block_results
    assert block.name == 'work' and block.num_calls == 4


def test_results_without_pandas():
    code = f'''
import sys, json
sys.modules['pandas'] = None  # as if pandas were not installed
import gpu_tracker as gput
r = gput.SubTrackingAnalyzer({os.path.join(SUB, 'tracking.csv')!r}, {os.path.join(SUB, 'sub-tracking.csv')!r}).sub_tracking_results()
assert type(r.overall) is dict and type(r.static_data) is dict, (type(r.overall), type(r.static_data))
assert r.overall['main_ram']['max'] == json.load(open({os.path.join(SUB, 'results.json')!r}))['overall']['main_ram']['max']
b = r.code_block_results[0]
assert type(b.compute_time) is dict and type(b.resource_usage) is dict
print('plain')
'''
    assert run_python(code).stdout == 'plain\n'


def test_results_are_pandas_objects_where_installed():
    pd = pytest.importorskip('pandas')  # python3-pandas is installed by setup-deps.sh
    r = gput.SubTrackingAnalyzer(os.path.join(SUB, 'tracking.csv'),
                                 os.path.join(SUB, 'sub-tracking.csv')).sub_tracking_results()
    assert isinstance(r.overall, pd.DataFrame) and list(r.overall.columns) == ['min', 'max', 'mean', 'std']
    assert isinstance(r.static_data, pd.Series) and r.static_data['ram_unit'] == 'gigabytes'
    assert isinstance(r.code_block_results[0].compute_time, pd.Series)
    assert r.code_block_results[0].compute_time['total'] == pytest.approx(37.35934376716614)


@pytest.mark.parametrize('ext', ['csv', 'sqlite'])
def test_analyzer_methods_of_the_python_package(ext):
    pd = pytest.importorskip('pandas')
    expected = json.load(open(os.path.join(SUB, 'results.json')))
    analyzer = gput.SubTrackingAnalyzer(os.path.join(SUB, f'tracking.{ext}'), os.path.join(SUB, f'sub-tracking.{ext}'))
    names = analyzer.load_code_block_names()
    assert names == [b['name'] for b in expected['code_block_results']] == sorted(names)
    for block in expected['code_block_results']:
        pairs = analyzer.load_timestamp_pairs(block['name'])
        assert len(pairs) == block['num_calls'] and all(type(a) is float and a <= b for a, b in pairs)
        assert sum(b - a for a, b in pairs) == pytest.approx(block['compute_time']['total'], rel=1e-12)
        timepoints = analyzer.load_timepoints(pairs)
        assert isinstance(timepoints, pd.DataFrame) and len(timepoints) == block['num_timepoints']
        assert timepoints['main_ram'].max() == pytest.approx(block['resource_usage']['main_ram']['max'])
    assert analyzer.load_timestamp_pairs('no such block') == []
    overall = analyzer.overall_timepoint_results()
    assert list(overall.columns) == ['min', 'max', 'mean', 'std']
    assert overall.loc['main_ram', 'max'] == pytest.approx(expected['overall']['main_ram']['max'])
    static = analyzer.read_static_data()
    assert isinstance(static, pd.Series) and static['ram_unit'] == 'gigabytes'
    assert static.to_dict() == expected['static_data']


def test_timepoints_are_numbered_as_the_package_numbers_them():
    pytest.importorskip('pandas')
    # The calls of block Y, whose timepoints are not the first rows of the file.
    got = {}
    for ext in ('csv', 'sqlite'):
        analyzer = gput.SubTrackingAnalyzer(os.path.join(SUB, f'tracking.{ext}'),
                                            os.path.join(SUB, f'sub-tracking.{ext}'))
        got[ext] = analyzer.load_timepoints(analyzer.load_timestamp_pairs('Y'))
    assert len(got['csv']) == len(got['sqlite']) > 0
    # The package reads a CSV file whole and selects rows: their places in the
    # file; it queries a SQLite file for them: 0, 1, ...
    assert list(got['sqlite'].index) == list(range(len(got['sqlite'])))
    assert list(got['csv'].index) != list(range(len(got['csv'])))
    assert list(got['csv']['timestamp']) == list(got['sqlite']['timestamp'])


# The Python package's test_invalid_file, word for word but one digit:
# pandas' CSV parser reads 1745449613.5325919 one unit in the last place off
# (1745449613.532592); the correctly rounded double is printed here.
INVALID1 = ('Sub-tracking file is invalid. Detected timestamp pair (1745449613.5325918, 1745449609.7528224) with '
            'differing process IDs: 1723811 and 1723812.')
INVALID2 = ('Sub-tracking file is invalid. Detected timestamp pair (1745449609.7528222, 1745449613.5325918) of '
            'process ID 1723811 with a start time greater than the stop time.')


def test_invalid_files_give_the_package_messages():
    analyzer = gput.SubTrackingAnalyzer(None, sub_tracking_file=os.path.join(SUB, 'invalid1.csv'))
    with pytest.raises(ValueError) as error:
        analyzer.load_timestamp_pairs('X')
    assert str(error.value) == INVALID1
    analyzer = gput.SubTrackingAnalyzer(None, sub_tracking_file=os.path.join(SUB, 'invalid2.csv'))
    with pytest.raises(ValueError) as error:
        analyzer.load_timestamp_pairs('X')
    assert str(error.value) == INVALID2
    with pytest.raises(ValueError, match='Valid file extensions are ".csv" and ".sqlite"'):
        gput.SubTrackingAnalyzer('tracking.txt', 'marks.csv')


def test_a_block_without_timepoints_gives_nan():
    pd = pytest.importorskip('pandas')
    # One call between two samples of the reference session: no timepoint inside.
    with open('between.csv', 'w') as f:
        f.write('process_id,code_block_name,position,timestamp\n1,gap,0,1745449610.0\n1,gap,1,1745449610.001\n')
    results = gput.SubTrackingAnalyzer(os.path.join(SUB, 'tracking.csv'), 'between.csv').sub_tracking_results()
    block, = results.code_block_results
    assert block.num_timepoints == 0 and block.num_non_empty_calls == 0
    assert list(block.resource_usage.dtypes.unique()) == [pd.Series([0.0]).dtype]
    assert block.resource_usage.isna().all().all()
    main = results.to_json()['code_block_results'][0]['resource_usage']['main_ram']
    assert all(isinstance(v, float) and v != v for v in main.values())  # NaN, as the package's to_json()


@pytest.mark.parametrize('ext', ['csv', 'sqlite'])
def test_nul_in_a_name_or_path_is_refused(ext):
    """The C library takes NUL-terminated strings: a name or path with a NUL
    character would be cut short there, so it is refused up front."""
    with pytest.raises(ValueError, match='NUL character'):
        gput.SubTracker(code_block_name='load\0-phase', sub_tracking_file=f'marks.{ext}')
    with pytest.raises(ValueError, match='embedded null byte'):
        with gput.SubTracker(code_block_name='load', sub_tracking_file=f'marks\0x.{ext}'):
            pass
    with pytest.raises(ValueError, match='embedded null byte'):
        gput.Tracker(tracking_file=f'samples\0x.{ext}')
    assert not os.listdir('.')  # nothing created under a cut name


def test_marks_of_two_hosts_analyze_per_host(monkeypatch):
    """Under Slurm (here asked for with GT_SUBTRACK_HOST) the marks carry the
    node's name; a file combined from two nodes analyzes one host at a time."""
    monkeypatch.setenv('GT_SUBTRACK_HOST', '1')
    for host, calls in (('n1', 1), ('n2', 2)):
        monkeypatch.setenv('SLURMD_NODENAME', host)
        for _ in range(calls):
            with gput.SubTracker('X', sub_tracking_file=f'{host}.csv', overwrite=True):
                pass
    assert rows('n1.csv')[0] == ['process_id', 'code_block_name', 'position', 'timestamp', 'host']
    assert {r[4] for r in rows('n2.csv')[1:]} == {'n2'}
    gput.SubTrackingAnalyzer(None, 'both.csv').combine_sub_tracking_files(['n1.csv', 'n2.csv'])
    tracking = os.path.join(SUB, 'tracking.csv')
    for host, calls in (('n1', 1), ('n2', 2)):
        block = gput.SubTrackingAnalyzer(tracking, 'both.csv', host=host).sub_tracking_results().code_block_results[0]
        assert (block.name, block.num_calls) == ('X', calls)
    with pytest.raises(ValueError, match="several hosts \\('n1', 'n2'\\)"):
        gput.SubTrackingAnalyzer(tracking, 'both.csv').sub_tracking_results()
    monkeypatch.delenv('GT_SUBTRACK_HOST')
    monkeypatch.delenv('SLURM_JOB_ID', raising=False)
    with gput.SubTracker('X', sub_tracking_file='plain.csv'):
        pass
    assert rows('plain.csv')[0] == ['process_id', 'code_block_name', 'position', 'timestamp']


@pytest.mark.parametrize('ext', ['csv', 'sqlite'])
def test_marks_take_the_modules_time_and_process_id(ext):
    """The Python package's test_sub_tracker and test_decorator replace
    gpu_tracker.sub_tracker.time and os.getpid to fix the marks' timestamps
    and process ID: they fix ours too, each called as often as the package
    calls it (the process ID once per SubTracker, the time once per mark)."""
    from unittest import mock
    n = 5
    with mock.patch('gpu_tracker.sub_tracker.os.getpid', side_effect=[1234] * n) as getpid, \
            mock.patch('gpu_tracker.sub_tracker.time', time=mock.MagicMock(side_effect=range(n * 2))) as clock:
        for _ in range(n):
            with gput.SubTracker(code_block_name='block', sub_tracking_file=f'marks.{ext}'):
                pass
    assert len(getpid.call_args_list) == n and len(clock.time.call_args_list) == n * 2

    @gput.sub_track(code_block_name='function', sub_tracking_file=f'function.{ext}')
    def function(a, b):
        return a + b
    with mock.patch('gpu_tracker.sub_tracker.os.getpid', return_value=4321), \
            mock.patch('gpu_tracker.sub_tracker.time', time=mock.MagicMock(side_effect=range(100, 106))):
        assert [function(i, 1) for i in range(3)] == [1, 2, 3]
    for path, pid, first in ((f'marks.{ext}', 1234, 0), (f'function.{ext}', 4321, 100)):
        pairs = gput.SubTrackingAnalyzer(None, path).load_timestamp_pairs(path.split('.')[0].replace('marks', 'block'))
        assert pairs == [(float(first + 2 * i), float(first + 2 * i + 1)) for i in range(len(pairs))] and pairs
        if ext == 'csv':
            assert {int(r[0]) for r in rows(path)[1:]} == {pid}
        else:
            import sqlite3
            with sqlite3.connect(path) as con:
                assert {r[0] for r in con.execute('SELECT process_id FROM data')} == {pid}


def test_the_default_file_is_named_by_the_modules_process_id(monkeypatch):
    """The package names the default file by os.getpid() of its
    gpu_tracker.sub_tracker module, the one call its test_decorator counts
    and fixes at 1234, and then reads 1234.csv: so is ours named, on a
    multi-node run too (the node's name in front)."""
    from unittest import mock

    @gput.sub_track(code_block_name='function')
    def function(a):
        return a
    with mock.patch('gpu_tracker.sub_tracker.os.getpid', return_value=1234) as getpid:
        assert function(7) == 7
        block = gput.SubTracker('X')
    assert len(getpid.call_args_list) == 2 and block.sub_tracking_file == '1234.csv'
    assert [r[:3] for r in rows('1234.csv')[1:]] == [['1234', 'function', '0'], ['1234', 'function', '1']]
    assert not os.path.exists(f'{os.getpid()}.csv')
    monkeypatch.setenv('SLURM_JOB_ID', '42')
    monkeypatch.setenv('SLURMD_NODENAME', 'n3')
    with mock.patch('gpu_tracker.sub_tracker.os.getpid', return_value=1234):
        with gput.SubTracker('X') as block:
            pass
    assert block.sub_tracking_file == 'n3-1234.csv' and rows('n3-1234.csv')[1][:3] == ['1234', 'X', '0']
