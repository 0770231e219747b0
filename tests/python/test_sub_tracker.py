"""Sub-tracking, analysis and comparison through the Python API: a function
sub-tracked over several calls and analyzed, the reference files of the
Python package (exact results), combining per-process files, comparing two
sessions, and the results without pandas."""
import csv
import json
import multiprocessing as mp
import os
import pickle
import shutil
import sys
import time

import pytest

import gpu_tracker as gput
from conftest import MIB, assert_close, touch_mib, run_python

REF = os.environ.get('GT_REF', os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'reference'))
SUB = os.path.join(REF, 'sub-tracking')
THIS_FILE = os.path.abspath(__file__)


def rows(path):
    return list(csv.reader(open(path)))


# The default name is taken when the decorator runs, relative to the directory then.
FUNCTION = f'{os.path.relpath(THIS_FILE)}:allocate'


@gput.sub_track(sub_tracking_file='functions.csv')
def allocate(n_mib):
    data = touch_mib(n_mib)
    time.sleep(0.15)
    del data


def run_session(tracking_file, sub_tracking_file, sizes=(20, 40, 60)):
    with gput.Tracker(sleep_time=0.02, tracking_file=tracking_file, ram_unit='megabytes', time_unit='seconds'):
        for n in sizes:
            allocate(n)
            with gput.SubTracker(code_block_name='pause', sub_tracking_file=sub_tracking_file):
                time.sleep(0.1)


def test_a_function_called_several_times_is_analyzed():
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


def test_existing_files_and_overwrite():
    open('marks.csv', 'w').write('kept\n')
    with pytest.raises(FileExistsError, match='marks.csv'):
        gput.SubTracker(code_block_name='a', sub_tracking_file='marks.csv')
    assert open('marks.csv').read() == 'kept\n'
    with gput.SubTracker(code_block_name='a', sub_tracking_file='marks.csv', overwrite=True):
        pass
    # Later SubTrackers of the same file in this process add to it, overwrite or not.
    for overwrite in (True, False):
        with gput.SubTracker(code_block_name='b', sub_tracking_file='marks.csv', overwrite=overwrite):
            pass
    assert [r[1] for r in rows('marks.csv')[1:]] == ['a', 'a', 'b', 'b', 'b', 'b']
    # A file removed since is started again.
    os.remove('marks.csv')
    with gput.SubTracker(code_block_name='c', sub_tracking_file='marks.csv'):
        pass
    assert [r[1] for r in rows('marks.csv')[1:]] == ['c', 'c']


@pytest.mark.parametrize('ext', ['csv', 'sqlite'])
def test_reference_files_give_the_reference_results(ext):
    results = gput.SubTrackingAnalyzer(os.path.join(SUB, f'tracking.{ext}'),
                                       os.path.join(SUB, f'sub-tracking.{ext}')).sub_tracking_results()
    assert_close(results.to_json(), json.load(open(os.path.join(SUB, 'results.json'))))
    assert str(results) == open(os.path.join(SUB, 'results.txt')).read()
    block = results.code_block_results[0]
    assert (block.name, block.num_calls) == ('X', 10)


def test_invalid_sub_tracking_files_are_refused():
    for name, words in (('invalid1.csv', ['1723811']), ('invalid2.csv', [])):
        with pytest.raises(ValueError) as error:
            gput.SubTrackingAnalyzer(os.path.join(SUB, 'tracking.csv'),
                                     os.path.join(SUB, name)).sub_tracking_results()
        assert all(w in str(error.value) for w in words), str(error.value)
    with pytest.raises(OSError):
        gput.SubTrackingAnalyzer('missing.csv', os.path.join(SUB, 'sub-tracking.csv')).sub_tracking_results()


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
    with pytest.raises(FileExistsError):
        gput.SubTrackingAnalyzer(None, f'combined.{ext}').combine_sub_tracking_files(parts)


def test_two_real_sessions_compared():
    for name, sizes in (('one', (20, 20, 20)), ('two', (60, 60, 60))):
        run_session(f'{name}.csv', 'functions.csv', sizes)
        results = gput.SubTrackingAnalyzer(f'{name}.csv', 'functions.csv').sub_tracking_results()
        if name == 'one':  # stored as the Python package's documentation does
            with open('one.pkl', 'wb') as f:
                pickle.dump(results, f)
        else:
            json.dump(results.to_json(), open(f'{name}.json', 'w'))
        os.remove('functions.csv')
    results = gput.TrackingComparison({'one': 'one.pkl', 'two': 'two.json'}).compare(statistic='max')
    function = FUNCTION
    main = results.code_block_resource_usage['main_ram'][function]
    assert main['two'] - main['one'] >= 40 * MIB / 1e6 * 0.9
    assert list(main.keys()) == ['one', 'two']  # smallest first


def _worker(i):
    with gput.SubTracker(code_block_name='work'):  # default file: <pid>.csv
        time.sleep(0.05)
    return os.getpid()


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
def test_nul_in_a_name_or_path_is_refused(ext):
    """The C library takes NUL-terminated strings: a name or path with a NUL
    character would be cut short there, so it is refused up front."""
    with pytest.raises(ValueError, match='NUL character'):
        gput.SubTracker(code_block_name='load\0-phase', sub_tracking_file=f'marks.{ext}')
    with pytest.raises(ValueError, match='embedded null byte'):
        gput.SubTracker(code_block_name='load', sub_tracking_file=f'marks\0x.{ext}')
    with pytest.raises(ValueError, match='embedded null byte'):
        gput.Tracker(tracking_file=f'samples\0x.{ext}')
    assert not os.listdir('.')  # nothing created under a cut name
