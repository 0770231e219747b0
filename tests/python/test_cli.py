# SPDX-License-Identifier: MIT
"""`python3 -m gpu_tracker`: the Python package's command line over the C
library, with the seed document's workflow: analyze to pickles, then compare
the pickles."""
import json
import os
import pickle
import subprocess
import sys
import time

import gpu_tracker as gput
from conftest import c_program_env

REF = os.environ.get('GT_REF', os.path.join(os.path.dirname(__file__), '..', 'fixtures', 'reference'))
SUB = os.path.join(REF, 'sub-tracking')


def cli(*args, check=True):
    proc = subprocess.run([sys.executable, '-m', 'gpu_tracker', *args], capture_output=True, text=True, timeout=120)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def test_analyze_to_pickles_then_compare_them():
    for name, ext in (('one', 'csv'), ('two', 'sqlite')):
        cli('sub-track', 'analyze', f'--tf={os.path.join(SUB, "tracking." + ext)}',
            f'--stf={os.path.join(SUB, "sub-tracking." + ext)}', '--format=pickle', f'--output={name}.pkl')
        results = pickle.load(open(f'{name}.pkl', 'rb'))
        assert isinstance(results, gput.SubTrackingResults)
        assert str(results) == open(os.path.join(SUB, 'results.txt')).read()
    # print() ends the report with a blank line, as the Python package's command does.
    text = cli('sub-track', 'compare', '-m', 'A=one.pkl', '-m', 'B=two.pkl', '--stat=max').stdout
    expected = gput.TrackingComparison({'A': 'one.pkl', 'B': 'two.pkl'}).compare('max')
    assert text == str(expected) + '\n'
    cli('sub-track', 'compare', '-m', 'A=one.pkl', '-m', 'B=two.pkl', '--stat=max', '-f', 'json', '-o', 'c.json')
    assert json.load(open('c.json')) == expected.to_json()
    assert open('c.json').read().startswith('{\n "overall_resource_usage": {\n  "')  # indent=1
    json.dump({'file_path_map': {'A': 'one.pkl'}, 'statistic': 'min'}, open('cconfig.json', 'w'))
    from_config = cli('sub-track', 'compare', '--cconfig=cconfig.json', '-m', 'B=two.pkl').stdout
    assert from_config == str(gput.TrackingComparison({'A': 'one.pkl', 'B': 'two.pkl'}).compare('min')) + '\n'


def test_combine_and_analyze_json():
    cli('sub-track', 'combine', '--stf=all.csv', '-p', os.path.join(SUB, 'files-to-combine', 'main.sub-tracking.csv'),
        '-p', os.path.join(SUB, 'files-to-combine', '1723811.sub-tracking.csv'))
    assert os.path.exists('all.csv')
    again = cli('sub-track', 'combine', '--stf=all.csv', '-p', os.path.join(SUB, 'sub-tracking.csv'), check=False)
    assert again.returncode == 1 and 'Cannot create sub-tracking file all.csv. File already exists.' in again.stderr
    out = cli('sub-track', 'analyze', f'--tf={os.path.join(SUB, "tracking.csv")}',
              f'--stf={os.path.join(SUB, "sub-tracking.csv")}', '-f', 'json').stdout
    assert json.loads(out)['code_block_results'][0]['name'] == \
        json.load(open(os.path.join(SUB, 'results.json')))['code_block_results'][0]['name']


def test_analyze_one_host():
    """--host as in the C command: one node's marks of a file of two nodes
    (the same process IDs on both), which alone is refused."""
    rows = open(os.path.join(SUB, 'sub-tracking.csv')).read().splitlines()
    with open('hosts.csv', 'w') as f:
        f.write(rows[0] + ',host\n')
        for host, prefix in (('n1', ''), ('n2', 'other-')):
            for row in rows[1:]:
                pid, name, rest = row.split(',', 2)
                f.write(f'{pid},{prefix}{name},{rest},{host}\n')
    args = ('sub-track', 'analyze', f'--tf={os.path.join(SUB, "tracking.csv")}', '--stf=hosts.csv', '-f', 'json')
    want = json.loads(cli(args[0], args[1], args[2], f'--stf={os.path.join(SUB, "sub-tracking.csv")}', '-f',
                          'json').stdout)
    got = json.loads(cli(*args, '--host=n1').stdout)
    assert [b['name'] for b in got['code_block_results']] == [b['name'] for b in want['code_block_results']]
    assert got['code_block_results'] == want['code_block_results']
    other = json.loads(cli(*args, '--host', 'n2').stdout)
    assert [b['name'] for b in other['code_block_results']] == \
        ['other-' + b['name'] for b in want['code_block_results']]
    both = cli(*args, check=False)
    assert both.returncode == 1 and 'several hosts' in both.stderr, both.stderr
    unknown = cli(*args, '--host=n3', check=False)
    assert unknown.returncode == 1 and "no marks of host 'n3' (its hosts: 'n1', 'n2')" in unknown.stderr, \
        unknown.stderr


def test_track_a_command():
    t0 = time.monotonic()
    run = cli('--execute=sleep 0.2', '--st=0.05', '--ru=megabytes', '--tu=seconds', '--disable-logs',
              '--format=json', '--output=usage.json', '--tf=t.csv')
    wall = time.monotonic() - t0
    assert run.stdout == 'Resource tracking complete. Process completed with status code: 0\n'
    usage = json.load(open('usage.json'))
    assert usage['max_ram']['unit'] == 'megabytes' and usage['compute_time']['unit'] == 'seconds'
    # As the Python package's command line does, the command starts before
    # the tracker that is given its PID: the tracker misses the moments
    # between the two (more on a busy machine, or while the event backend
    # loads), never more than it took.
    assert 0 < usage['compute_time']['time'] <= wall
    assert open('usage.json').read().startswith('{\n "max_ram": {\n  "unit"')  # indent=1
    assert os.path.getsize('t.csv') > 0


def test_usage_errors():
    assert cli('--version').stdout.strip() == gput.__version__
    help_text = cli('--help').stdout
    assert 'sub-track compare' in help_text
    # compare -m loads pickles, which runs code from the file: --help says so.
    assert ' '.join(help_text.split()).find('Loading a pickle runs code from the file: compare only pickles you '
                                            'trust.') > 0
    for args, status, message in ((['--bogus'], 2, 'unrecognized arguments'),
                                  (['sub-track', 'analyze', '--tf=t.csv'], 2, 'needs --tf'),
                                  (['--execute=no-such-command-here'], 1, 'Command not found'),
                                  (['sub-track', 'analyze', f'--tf={os.path.join(SUB, "tracking.csv")}',
                                    f'--stf={os.path.join(SUB, "sub-tracking.csv")}', '-f', 'pickle'], 1,
                                   'needs a file'),
                                  (['sub-track', 'analyze', f'--tf={os.path.join(SUB, "tracking.csv")}',
                                    f'--stf={os.path.join(SUB, "sub-tracking.csv")}', '-f', 'xml'], 1,
                                   'ERROR:gpu_tracker:"xml" is not a valid format. '
                                   'Valid values are "json" or "text".\n')):
        run = cli(*args, check=False)
        assert run.returncode == status and message in run.stderr, (args, run.returncode, run.stderr)


def test_compare_without_sessions_says_what_the_package_says():
    run = cli('sub-track', 'compare', check=False)
    assert run.returncode == 1
    assert run.stderr == ('ERROR:gpu_tracker:A mapping of tracking session name to file path must be provided either '
                          'through the -m option or a config file.\n')


def test_a_block_without_timepoints_is_nan_in_json_and_compares():
    """The package's `sub-track analyze -f json` is json.dumps of its
    to_json(): NaN for the statistics of a block without timepoints (which
    json.load reads back as nan).  So is this command's; gpu-tracker's C
    command writes null there (see docs/sub-tracking.md).  Both compare."""
    import math
    with open('between.csv', 'w') as f:
        f.write('process_id,code_block_name,position,timestamp\n1,gap,0,1745449610.0\n1,gap,1,1745449610.001\n')
    args = ('sub-track', 'analyze', f'--tf={os.path.join(SUB, "tracking.csv")}', '--stf=between.csv', '-f', 'json')
    cli(*args, '-o', 'python.json')
    text = open('python.json').read()
    assert '"min": NaN' in text and 'null' not in text
    usage = json.load(open('python.json'))['code_block_results'][0]['resource_usage']
    assert all(math.isnan(v) for stats in usage.values() for v in stats.values())
    c_bin = os.path.join(os.environ.get('GT_BUILD', 'build'), 'gpu-tracker')
    subprocess.run([c_bin, *args, '-o', 'c.json'], check=True, capture_output=True, env=c_program_env())
    c_text = open('c.json').read()
    assert '"min": null' in c_text and 'NaN' not in c_text
    # Each file compares with the other, and with a pickle of the same results.
    cli(*args[:-2], '-f', 'pickle', '-o', 'python.pkl')
    assert 'gap' in cli('sub-track', 'compare', '-m', 'P=python.json', '-m', 'C=c.json', '-m', 'K=python.pkl').stdout
    text = cli('sub-track', 'compare', '-m', 'P=python.json', '-m', 'C=c.json').stdout
    c_text = subprocess.run([c_bin, 'sub-track', 'compare', '-m', 'P=python.json', '-m', 'C=c.json'], check=True,
                            capture_output=True, text=True, env=c_program_env()).stdout
    assert c_text + '\n' == text  # print() adds a line, as in the package's command
    compared = gput.TrackingComparison({'P': 'python.json', 'C': 'c.json', 'K': 'python.pkl'}).compare()
    assert all(math.isnan(v) for v in compared.to_json()['code_block_resource_usage']['main_ram']['gap'].values())
