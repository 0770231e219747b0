# SPDX-License-Identifier: MIT
"""TrackingComparison through the Python API: the Python package's reference
comparisons reproduced (text exactly, JSON to 12 digits), warnings to
logging, errors, and the results with and without pandas."""
import json
import logging
import os
import pickle

import pytest

import gpu_tracker as gput
from conftest import assert_close, run_python

REF = os.environ.get('GT_REF', os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'reference'))
CMP = os.path.join(REF, 'comparison')


@pytest.mark.parametrize('statistic', ['mean', 'max'])
def test_reference_comparison(statistic, caplog):
    comparison = gput.TrackingComparison({'A': os.path.join(CMP, 'results-A.json'),
                                          'B': os.path.join(CMP, 'results-B.json')})
    with caplog.at_level(logging.WARNING, logger='gpu_tracker'):
        results = comparison.compare(statistic=statistic)
    assert_close(results.to_json(), json.load(open(os.path.join(CMP, f'comparison_{statistic}.json'))))
    assert str(results) == open(os.path.join(CMP, f'comparison_{statistic}.txt')).read()
    assert any('tmp.py:7' in r.getMessage() for r in caplog.records)
    main = results.overall_resource_usage['main_ram']
    expected = json.load(open(os.path.join(CMP, f'comparison_{statistic}.json')))['overall_resource_usage']
    assert_close({k: float(v) for k, v in main.items()}, expected['main_ram'])
    assert list(results.code_block_compute_time) == \
        list(json.load(open(os.path.join(CMP, f'comparison_{statistic}.json')))['code_block_compute_time'])


def test_compare_without_code_blocks_and_errors():
    results = gput.TrackingComparison({'F': os.path.join(CMP, 'results-F.json'),
                                       'G': os.path.join(CMP, 'results-G.json')}).compare()
    assert results.code_block_resource_usage == {} or all(not v for v in results.code_block_resource_usage.values())
    assert set(results.overall_resource_usage['main_ram'].keys()) == {'F', 'G'}
    with pytest.raises(ValueError):
        gput.TrackingComparison({'A': os.path.join(CMP, 'results-A.json')}).compare(statistic='median')
    with pytest.raises(ValueError, match='file_path_map is empty'):
        gput.TrackingComparison({})


def test_comparison_without_pandas():
    code = f'''
import sys
sys.modules['pandas'] = None  # as if pandas were not installed
import gpu_tracker as gput
c = gput.TrackingComparison({{'A': {os.path.join(CMP, 'results-A.json')!r}, 'B': {os.path.join(CMP, 'results-B.json')!r}}}).compare()
assert type(c.overall_resource_usage['main_ram']) is dict
assert list(c.overall_resource_usage['main_ram']) == ['A', 'B']
assert type(c.code_block_compute_time['X']) is dict
print('plain')
'''
    assert run_python(code).stdout == 'plain\n'


def test_comparison_series_where_pandas_is_installed():
    pd = pytest.importorskip('pandas')  # python3-pandas is installed by setup-deps.sh
    c = gput.TrackingComparison({'A': os.path.join(CMP, 'results-A.json'),
                                 'B': os.path.join(CMP, 'results-B.json')}).compare()
    main = c.overall_resource_usage['main_ram']
    assert isinstance(main, pd.Series) and list(main.index) == ['A', 'B']
    assert main['A'] == pytest.approx(0.6006015590399999)
    assert isinstance(c.code_block_resource_usage['main_ram']['X'], pd.Series)


def _fields_only(results_json):
    """A SubTrackingResults with its fields alone, as unpickling the Python
    package's own object gives (pandas tables, no JSON kept)."""
    pd = pytest.importorskip('pandas')
    blocks = [gput.CodeBlockResults(b['name'], b['num_timepoints'], b['num_calls'], b['num_non_empty_calls'],
                                    pd.Series(b['compute_time']), pd.DataFrame.from_dict(b['resource_usage'], 'index'))
              for b in results_json['code_block_results']]
    return gput.SubTrackingResults(pd.DataFrame.from_dict(results_json['overall'], 'index'),
                                   pd.Series(results_json['static_data'], name=0), blocks)


def test_pickled_results_as_the_python_packages_scripts_store_them():
    paths = {}
    for name in 'AB':
        results = _fields_only(json.load(open(os.path.join(CMP, f'results-{name}.json'))))
        with open(f'results-{name}.pkl', 'wb') as f:
            pickle.dump(results, f)
        paths[name] = f'results-{name}.pkl'
    results = gput.TrackingComparison(paths).compare(statistic='max')
    assert_close(results.to_json(), json.load(open(os.path.join(CMP, 'comparison_max.json'))))
    # (Text differs only where pandas made the integer maxima floats: "15.0" for "15".)
    assert str(results).startswith('Overall Resource Usage:\n')
    with open('other.pkl', 'wb') as f:
        pickle.dump({'not': 'results'}, f)
    with pytest.raises(ValueError, match="'other.pkl' holds a pickled dict, not SubTrackingResults"):
        gput.TrackingComparison({'A': paths['A'], 'X': 'other.pkl'}).compare()


def _variant(name, change):
    """results-A.json changed by change(dict), pickled as a SubTrackingResults
    the way the Python package's scripts store results."""
    d = json.load(open(os.path.join(CMP, 'results-A.json')))
    change(d)
    results = gput.SubTrackingResults._from_json(d, '')
    with open(f'results-{name}.pkl', 'wb') as f:
        pickle.dump(results, f)
    return f'results-{name}.pkl'


def _rename(old, new):
    def change(d):
        for block in d['code_block_results']:
            if block['name'] == old:
                block['name'] = new
    return change


def test_mismatches_refused_on_construction_as_the_package_does():
    a = os.path.join(CMP, 'results-A.json')
    c = _variant('C', lambda d: d['code_block_results'].append(dict(d['code_block_results'][0], name='extra')))
    with pytest.raises(ValueError) as error:
        gput.TrackingComparison({'A': a, 'C': c})
    assert str(error.value) == ('All sub-tracking results must have the same number of code blocks. The first has 4 '
                                'code blocks but tracking session "C" has 5 code blocks.')
    with pytest.raises(ValueError) as error:
        gput.TrackingComparison({'A': a, 'D': _variant('D', _rename('tmp.py:38', 'tmp.py:abc'))})
    assert str(error.value) == ('Code block name "tmp.py:38" of tracking session "A" does not match code block name '
                                '"tmp.py:abc" of tracking session "D"')
    with pytest.raises(ValueError) as error:
        gput.TrackingComparison({'A': a, 'E': _variant('E', _rename('tmp.py:9', 'temp.py:123'))})
    assert str(error.value) == ('Code block name "tmp.py:9" of tracking session "A" does not match code block name '
                                '"temp.py:123" of tracking session "E"')
    # The first session is the first name in sorted order, whatever the map's order.
    with pytest.raises(ValueError, match='tracking session "C" has 5 code blocks'):
        gput.TrackingComparison({'C': c, 'A': a})
    comparison = gput.TrackingComparison({'A': a, 'B': os.path.join(CMP, 'results-B.json')})
    assert set(comparison.results_map) == {'A', 'B'}
    assert isinstance(comparison.results_map['A'], gput.SubTrackingResults)
    with pytest.raises(ValueError) as error:
        comparison.compare('invalid')
    assert str(error.value) == "Invalid summary statistic 'invalid'. Valid values are min max mean std."


def test_errors_name_the_users_file_not_a_copy():
    bad = _variant('bad', lambda d: d['overall']['main_ram'].pop('mean'))
    with pytest.raises(ValueError) as error:
        gput.TrackingComparison({'A': os.path.join(CMP, 'results-A.json'), 'Z': bad})
    assert 'results-bad.pkl' in str(error.value) and '.json' not in str(error.value)


def shown(value):
    """A value as the package's report shows it: integers (the counts of
    threads, in the package's pickles) as they are, floats rounded to 8
    decimals, text as it is."""
    return str(float(f'{value:.8f}')) if isinstance(value, float) else str(value)


def test_the_packages_own_pickles_load_print_and_compare():
    """results-*.pkl: SubTrackingResults pickled by the Python package (its
    pandas tables, numpy 2's module names, SQLAlchemy's column names).  They
    load without the package's environment, print its report, and compare
    as their JSON copies do."""
    pytest.importorskip('pandas')
    pkl = {n: os.path.join(CMP, f'results-{n}.pkl') for n in 'ABCDEFG'}
    comparison = gput.TrackingComparison({'A': pkl['A'], 'B': pkl['B']})
    for statistic in ('mean', 'max'):
        results = comparison.compare(statistic)
        assert str(results) == open(os.path.join(CMP, f'comparison_{statistic}.txt')).read()
    for name in 'AB':
        results = comparison.results_map[name]
        expected = json.load(open(os.path.join(CMP, f'results-{name}.json')))
        assert_close(results.to_json(), expected)
        text = str(results)
        lines = text.split('\n')
        assert [line for line in lines if not line.startswith('\t')] == [
            'Overall:', 'Static Data:', 'Code Block Results:'] + [''] * (len(expected['code_block_results']) + 1)
        # The overall table, every statistic as the package prints it: rounded to 8 decimals.
        overall = lines[lines.index('Overall:') + 1:lines.index('Static Data:')]
        assert overall[0].split() == ['min', 'max', 'mean', 'std']
        for line, (measure, stats) in zip(overall[1:], expected['overall'].items(), strict=True):
            assert line.split() == [measure] + [shown(stats[k]) for k in ('min', 'max', 'mean', 'std')]
        static = lines[lines.index('Static Data:') + 1:lines.index('Code Block Results:')]
        assert static[0].split() == list(expected['static_data'])
        assert static[1].split() == [shown(v) for v in expected['static_data'].values()]
        for block in expected['code_block_results']:
            at = lines.index(f'\tName:                {block["name"]}')
            assert lines[at + 1:at + 4] == [f'\tNum Timepoints:      {block["num_timepoints"]}',
                                            f'\tNum Calls:           {block["num_calls"]}',
                                            f'\tNum Non Empty Calls: {block["num_non_empty_calls"]}']
            assert lines[at + 4] == '\tCompute Time:' and lines[at + 7] == '\tResource Usage:'
            assert lines[at + 6].split() == [shown(block['compute_time'][k])
                                             for k in ('min', 'max', 'mean', 'std', 'total')]
        # As pickle.load gives it, where the package's environment is installed.
        with open(pkl[name], 'rb') as f:
            again = gput.sub_tracker._PackageUnpickler(f).load()
        assert type(again) is gput.SubTrackingResults and str(again) == text
    # F and G have no code blocks; C, D and E do not match A's, and are refused as the package refuses them.
    results = gput.TrackingComparison({'F': pkl['F'], 'G': pkl['G']})
    assert str(results.results_map['F']).endswith('Code Block Results:\n')
    for name, message in (
            ('C', 'All sub-tracking results must have the same number of code blocks. The first has 4 code blocks but '
                  'tracking session "C" has 5 code blocks.'),
            ('D', 'Code block name "tmp.py:38" of tracking session "A" does not match code block name "tmp.py:abc" of '
                  'tracking session "D"'),
            ('E', 'Code block name "tmp.py:9" of tracking session "A" does not match code block name "temp.py:123" of '
                  'tracking session "E"')):
        with pytest.raises(ValueError) as error:
            gput.TrackingComparison({'A': pkl['A'], name: pkl[name]})
        assert str(error.value) == message
