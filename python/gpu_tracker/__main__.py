# SPDX-License-Identifier: MIT
"""The Python gpu-tracker package's command line, over the C library:
`python3 -m gpu_tracker` (and the `gpu-tracker` script a pip install of this
package makes).  The same commands and options as the Python package, pickle
results included, which the C binary `gpu-tracker` does not write.

Usage:
    gpu-tracker -h | --help
    gpu-tracker -v | --version
    gpu-tracker --execute=<command> [--output=<output>] [--format=<format>] [--tconfig=<config-file>] [--st=<sleep-time>] [--ru=<ram-unit>] [--gru=<gpu-ram-unit>] [--tu=<time-unit>] [--nec=<num-cores>] [--guuids=<gpu-uuids>] [--disable-logs] [--gb=<gpu-brand>] [--tf=<tracking-file>] [--overwrite]
    gpu-tracker sub-track combine --stf=<sub-track-file> [-p <file-path>]...
    gpu-tracker sub-track analyze --tf=<tracking-file> --stf=<sub-track-file> [--host=<host>] [--output=<output>] [--format=<format>]
    gpu-tracker sub-track compare [--output=<output>] [--format=<format>] [--cconfig=<config-file>] [-m <name>=<file-path>...] [--stat=<statistic>]

Options:
    -h --help               Show this help message and exit.
    -v --version            Show package version and exit.
    -e --execute=<command>  The command to run along with its arguments all within quotes e.g. "ls -l -a".
    -o --output=<output>    File path to store the resource usage (tracking) or the report (sub-tracking). If not set, prints to the screen.
    -f --format=<format>    File format of the output. Either 'json', 'text', or 'pickle' (sub-track analyze). Defaults to 'text'.
    --tconfig=<config-file> JSON file of Tracker keyword arguments; command-line options override them.
    --st=<sleep-time>       The number of seconds to sleep in between usage-collection iterations.
    --ru=<ram-unit>         One of 'bytes', 'kilobytes', 'megabytes', 'gigabytes', or 'terabytes'.
    --gru=<gpu-ram-unit>    One of 'bytes', 'kilobytes', 'megabytes', 'gigabytes', or 'terabytes'.
    --tu=<time-unit>        One of 'seconds', 'minutes', 'hours', or 'days'.
    --nec=<num-cores>       The number of cores expected to be used. Defaults to the number of cores in the system.
    --guuids=<gpu-uuids>    Comma separated list of the UUIDs of the GPUs to track. Defaults to all the GPUs.
    --disable-logs          If set, warnings are suppressed during tracking.
    --gb=<gpu-brand>        The brand of GPU to profile: {gpu_brands}. Defaults to the brand detected.
    --tf=<tracking-file>    The tracking file (.csv or .sqlite) of every measurement.
    --overwrite             Overwrite the tracking file if it exists.
    --stf=<sub-track-file>  The sub-tracking file (.csv or .sqlite).
    --host=<host>           Analyze only this host's marks (a sub-tracking file of several nodes; the tracking file is that node's).
    -p <file-path>          Sub-tracking files to combine; a single path is a directory whose files are combined.
    --cconfig=<config-file> JSON file with "file_path_map" and "statistic" for sub-track compare.
    -m <name>=<file-path>   A tracking session's name and its results file (pickle, or JSON). Loading a pickle
                            runs code from the file: compare only pickles you trust.
    --stat=<statistic>      The statistic compared: 'min', 'max', 'mean', or 'std'. Defaults to 'mean'.
"""
from __future__ import annotations

import argparse
import json
import logging
import pickle
import subprocess
import sys

from . import _lib, Tracker, SubTrackingAnalyzer, TrackingComparison, __version__

# The --gb line names the brands of the library's vendor backends.
__doc__ = __doc__.replace('{gpu_brands}', ' or '.join(_lib.gpu_brands()))

log = logging.getLogger('gpu_tracker')

# command-line option -> Tracker keyword argument
_TRACKER_OPTIONS = {'st': 'sleep_time', 'ru': 'ram_unit', 'gru': 'gpu_ram_unit', 'tu': 'time_unit',
                    'nec': 'n_expected_cores', 'guuids': 'gpu_uuids', 'disable_logs': 'disable_logs',
                    'gb': 'gpu_brand', 'tf': 'tracking_file', 'overwrite': 'overwrite'}


class _Usage(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise _Usage(message)


def _parser():
    p = _Parser(prog='gpu-tracker', add_help=False)
    p.add_argument('-h', '--help', action='store_true')
    p.add_argument('-v', '--version', action='store_true')
    p.add_argument('-e', '--execute')
    p.add_argument('-o', '--output')
    p.add_argument('-f', '--format')
    p.add_argument('--tconfig')
    p.add_argument('--st', type=float)
    p.add_argument('--ru')
    p.add_argument('--gru')
    p.add_argument('--tu')
    p.add_argument('--nec', type=int)
    p.add_argument('--guuids')
    p.add_argument('--disable-logs', dest='disable_logs', action='store_true', default=None)
    p.add_argument('--gb')
    p.add_argument('--tf')
    p.add_argument('--overwrite', action='store_true', default=None)
    p.add_argument('--stf')
    p.add_argument('--host')
    p.add_argument('-p', dest='paths', action='append', default=[])
    p.add_argument('--cconfig')
    p.add_argument('-m', dest='mappings', action='append', default=[])
    p.add_argument('--stat')
    p.add_argument('command', nargs='*')
    return p


def _fail(message: str):
    log.error(message)
    sys.exit(1)


def _write(text: str, output: str | None):
    if output is None:
        print(text)
    else:
        with open(output, 'w') as file:
            file.write(text)


def _formatted(results, output_format: str, output: str | None, allow_pickle: bool):
    """Writes results (anything with str() and to_json()) in the format."""
    if output_format == 'pickle' and allow_pickle:
        if output is None:
            _fail('The pickle format needs a file: give --output=<file>.')
        with open(output, 'wb') as file:
            pickle.dump(results, file)
        return
    if output_format == 'json':
        _write(json.dumps(results.to_json(), indent=1), output)
    elif output_format == 'text':
        _write(str(results), output)
    else:
        # The package's words, which leave out the pickle it writes too.
        _fail(f'"{output_format}" is not a valid format. Valid values are "json" or "text".')


def _track(args):
    kwargs = {}
    if args.tconfig is not None:
        with open(args.tconfig) as file:
            kwargs.update(json.load(file))
    for option, keyword in _TRACKER_OPTIONS.items():
        value = getattr(args, option)
        if value is not None:
            kwargs[keyword] = value
    if isinstance(kwargs.get('gpu_uuids'), str):
        kwargs['gpu_uuids'] = set(kwargs['gpu_uuids'].split(','))
    command = args.execute.split()
    if not command:
        _fail('Empty command provided.')
    try:
        process = subprocess.Popen(command)
    except FileNotFoundError:
        _fail(f'Command not found: "{command[0]}"')
    except OSError as error:
        _fail(f'The following error occurred when starting the command "{command[0]}": {error}')
    with Tracker(process_id=process.pid, **kwargs) as tracker:
        process.wait()
    print(f'Resource tracking complete. Process completed with status code: {process.returncode}')
    _formatted(tracker, args.format or 'text', args.output, allow_pickle=False)


def _sub_track(args):
    what = args.command[1] if len(args.command) > 1 else None
    output_format = args.format or 'text'
    if what == 'combine':
        if args.stf is None:
            raise _Usage('sub-track combine needs --stf=<sub-track-file>')
        files = args.paths[0] if len(args.paths) == 1 else args.paths
        SubTrackingAnalyzer(None, args.stf).combine_sub_tracking_files(files)
    elif what == 'analyze':
        if args.tf is None or args.stf is None:
            raise _Usage('sub-track analyze needs --tf=<tracking-file> and --stf=<sub-track-file>')
        results = SubTrackingAnalyzer(args.tf, args.stf, host=args.host).sub_tracking_results()
        _formatted(results, output_format, args.output, allow_pickle=True)
    elif what == 'compare':
        file_path_map, statistic = {}, 'mean'
        if args.cconfig is not None:
            with open(args.cconfig) as file:
                config = json.load(file)
            file_path_map.update(config.get('file_path_map', {}))
            statistic = config.get('statistic', statistic)
        for mapping in args.mappings:
            name, sep, path = mapping.partition('=')
            if not sep:
                raise _Usage(f'-m takes <name>=<file-path>, not "{mapping}"')
            file_path_map[name] = path
        if not file_path_map:
            _fail('A mapping of tracking session name to file path must be provided either through the -m option or '
                  'a config file.')
        if args.stat is not None:
            statistic = args.stat
        results = TrackingComparison(file_path_map).compare(statistic)
        _formatted(results, output_format, args.output, allow_pickle=True)
    else:
        raise _Usage('sub-track takes combine, analyze or compare')


def main(argv=None):
    logging.basicConfig(format='%(levelname)s:%(name)s:%(message)s')
    try:
        args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
        if args.help:
            print(__doc__.split('\n\n', 1)[1].strip())
            return
        if args.version:
            print(__version__)
            return
        if args.command[:1] == ['sub-track']:
            _sub_track(args)
        elif args.execute is not None and not args.command:
            _track(args)
        else:
            raise _Usage('give --execute=<command>, or a sub-track command')
    except _Usage as error:
        print(f'gpu-tracker: {error}\n{__doc__.split("Options:")[0].split("Usage:")[1].rstrip()}', file=sys.stderr)
        sys.exit(2)
    except (ValueError, OSError, RuntimeError) as error:
        _fail(str(error))


if __name__ == '__main__':
    main()
