# SPDX-License-Identifier: MIT
"""Sub-tracking (SubTracker, sub_track), its analysis (SubTrackingAnalyzer)
and the comparison of sessions (TrackingComparison), with the Python
package's names and arguments.  Files, statistics and reports are the C
library's; this module turns its JSON into the result objects."""
from __future__ import annotations

import atexit
import contextlib
import ctypes
import dataclasses as dclass
import errno
import functools
import io
import json
import logging
import math
import os
import pickle
import re
import sys
import tempfile
import threading
import time

from . import _lib, _tables

log = logging.getLogger(__name__)

START, STOP = 0, 1


class _SubTrackingFiles:
    """The sub-tracking files this process writes, one open C handle per path.
    The first SubTracker of a path creates the file (an existing one only with
    overwrite=True); later ones for the same path add their marks to it, so a
    loop of `with SubTracker(...)` records every call, as the Python package
    does.  A file removed since is an error, as in the package."""

    def __init__(self):
        self._lock = threading.Lock()
        self._files = {}  # absolute path -> (handle, (st_dev, st_ino))
        # A forked child opens its own: the parent's handles are left to the
        # parent (never freed in the child).  Known from the fork itself, so
        # a mark calls os.getpid() only where the package does (see SubTracker).
        os.register_at_fork(after_in_child=self._forget)

    def _forget(self):
        self._lock = threading.Lock()
        self._files = {}

    def get(self, path: str, overwrite: bool):
        key = os.path.abspath(path)
        with self._lock:
            entry = self._files.get(key)
            if entry is not None and self._same_file(path, entry[1]):
                return entry[0]
            if entry is not None and not os.path.exists(path):
                raise FileNotFoundError(f'The file {path} was removed in the middle of writing data to it.')
            # The file was replaced since: start it again.
            handle = ctypes.c_void_p()
            err = _lib.Error()
            status = _lib.require('gt_subtracker_open')(_lib.encode(path), int(bool(overwrite)),
                                                        ctypes.byref(handle), ctypes.byref(err))
            if status == _lib.GT_ERR_EXISTS:  # the package's words, which scripts match
                raise FileExistsError(f'File {path} already exists. Set overwrite to True to overwrite the '
                                      f'existing file.')
            _lib.check(status, err.message)
            if entry is not None:
                self._free(entry[0])
            st = os.stat(path)
            self._files[key] = (handle, (st.st_dev, st.st_ino))
            return handle

    @staticmethod
    def _same_file(path, ident):
        try:
            st = os.stat(path)
        except OSError:
            return False
        return (st.st_dev, st.st_ino) == ident

    @staticmethod
    def _free(handle):
        _lib.lib.gt_subtracker_free(ctypes.byref(handle))

    def close_all(self):
        with self._lock:
            for handle, _ in self._files.values():
                self._free(handle)
            self._files.clear()


_files = _SubTrackingFiles()
atexit.register(_files.close_all)


def _caller_file(depth: int):
    frame = sys._getframe(depth)  # inspect.stack() would read every frame's source file
    return frame.f_code.co_filename, frame.f_lineno


def _default_path(process_id: int) -> str:
    """The C library's default name for the process ID: "<pid>.csv", or
    "<host>-<pid>.csv" on a multi-node run (Slurm, GT_SUBTRACK_HOST), where
    process IDs repeat."""
    buf = ctypes.create_string_buffer(512)
    err = _lib.Error()
    _lib.check(_lib.require('gt_subtracker_default_path_of')(process_id, buf, len(buf), ctypes.byref(err)),
               err.message)
    return os.fsdecode(buf.value)


class SubTracker:
    """Marks the start and stop of a code block in a sub-tracking file, as a
    context manager.  code_block_name defaults to "<relative path>:<attribute>"
    of the file creating it, code_block_attribute to the line creating it;
    sub_tracking_file to "<process ID>.csv" ("<host>-<process ID>.csv" under
    Slurm or with GT_SUBTRACK_HOST set).  The file is created (an
    existing one refused unless overwrite) on entering the block, as the
    Python package does."""

    def __init__(self, code_block_name: str | None = None, code_block_attribute: str | None = None,
                 sub_tracking_file: str | None = None, overwrite: bool = False):
        if code_block_name is not None and '\0' in str(code_block_name):
            # The C library takes NUL-terminated names: it would be cut there.
            raise ValueError(f'code_block_name {code_block_name!r} contains a NUL character')
        if code_block_name is None:
            filename, lineno = _caller_file(2)
            attribute = lineno if code_block_attribute is None else code_block_attribute
            code_block_name = f'{os.path.relpath(filename)}:{attribute}'
        self.code_block_name = code_block_name
        self.process_id = os.getpid()
        # Named by this module's os.getpid(), as the marks are (see _mark).
        self.sub_tracking_file = (sub_tracking_file if sub_tracking_file is not None
                                  else _default_path(self.process_id))
        self.overwrite = overwrite
        if not self.sub_tracking_file.endswith(('.csv', '.sqlite')):
            raise ValueError(f'Invalid file name: "{self.sub_tracking_file}". Valid file extensions are ".csv" and '
                             f'".sqlite".')
        self._handle = None

    def _mark(self, position: int):
        # The process ID taken when the SubTracker was made and the time from
        # this module's time.time(), as the Python package takes them: tests
        # written for it that replace gpu_tracker.sub_tracker.time or
        # os.getpid fix the marks here too.
        err = _lib.Error()
        status = _lib.require('gt_subtracker_mark_at')(self._handle, self.code_block_name.encode(), position,
                                                       self.process_id, time.time(), ctypes.byref(err))
        if status != _lib.GT_OK:
            _lib.check(status, err.message or f'cannot write the mark: {_lib.strerror(status)}')

    def __enter__(self) -> SubTracker:
        if self._handle is None:
            self._handle = _files.get(self.sub_tracking_file, self.overwrite)
        self._mark(START)
        return self

    def __exit__(self, *exc):
        self._mark(STOP)
        return False


def sub_track(code_block_name: str | None = None, code_block_attribute: str | None = None,
              sub_tracking_file: str | None = None, overwrite: bool = False):
    """Decorator: sub-tracks every call of the function.  code_block_name
    defaults to "<absolute path of the defining file>:<attribute>",
    code_block_attribute to the function's name (the Python package's
    defaults)."""
    def decorator(func):
        name = code_block_name
        if name is None:
            filename, _ = _caller_file(2)
            attribute = func.__name__ if code_block_attribute is None else code_block_attribute
            name = f'{os.path.abspath(filename)}:{attribute}'

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with SubTracker(code_block_name=name, sub_tracking_file=sub_tracking_file, overwrite=overwrite):
                return func(*args, **kwargs)
        return wrapper
    return decorator


def _take_report(handle, string_name, free_name):
    """(JSON as a dict, text) of a C results object, which is then freed."""
    try:
        string = _lib.require(string_name)
        text = _lib.to_string(string, handle, _lib.FORMAT_TEXT)
        return json.loads(_lib.to_string(string, handle, _lib.FORMAT_JSON)), text
    finally:
        getattr(_lib.lib, free_name)(ctypes.byref(handle))


def _c_log(messages):
    def log_fn(ctx, message):
        messages.append(message.decode('utf-8', 'replace'))
    return _lib.LOG_FN(log_fn)


class _Report:
    """A C report: str() is its text, to_json() its JSON as a dict."""
    _text = ''
    _json: dict = {}

    def _set_report(self, data: dict, text: str):
        self._json, self._text = data, text
        return self

    def __str__(self):
        return self._text or self._text_from_fields()

    def to_json(self) -> dict:
        return json.loads(json.dumps(self._json or self._json_from_fields()))  # a copy the caller may change

    def _text_from_fields(self) -> str:
        return ''

    def _json_from_fields(self) -> dict:
        raise NotImplementedError


def _nan_for_none(table):
    """Replaces None by NaN in a {key: value} or {row: {column: value}} dict, in place."""
    if not isinstance(table, dict):
        return
    for key, value in table.items():
        if value is None:
            table[key] = math.nan
        elif isinstance(value, dict):
            _nan_for_none(value)


@dclass.dataclass
class CodeBlockResults:
    name: str
    num_timepoints: int
    num_calls: int
    num_non_empty_calls: int
    compute_time: object
    resource_usage: object


@dclass.dataclass
class SubTrackingResults(_Report):
    """overall and code block resource_usage: DataFrames (measurement x
    min/max/mean/std) with pandas, else dicts; static_data: a Series or dict;
    code_block_results: a list of CodeBlockResults."""
    overall: object
    static_data: object
    code_block_results: list
    @classmethod
    def _from_json(cls, d: dict, text: str) -> SubTrackingResults:
        # The library writes a statistic of no timepoints as null (valid
        # JSON); the Python package has NaN there, in float columns.
        _nan_for_none(d.get('overall'))
        for b in d.get('code_block_results', []):
            _nan_for_none(b.get('compute_time'))
            _nan_for_none(b.get('resource_usage'))
        blocks = [CodeBlockResults(b['name'], b['num_timepoints'], b['num_calls'], b['num_non_empty_calls'],
                                   _tables.series(b['compute_time'], dtype='float64'),
                                   _tables.frame(b['resource_usage']))
                  for b in d.get('code_block_results', [])]
        return cls(_tables.frame(d['overall']), _tables.series(d['static_data'], name=0, dtype=object),
                   blocks)._set_report(d, text)

    def _text_from_fields(self) -> str:
        """The report of an object unpickled from the Python package (or built
        from its fields), whose tables are pandas objects: the package's text
        is pandas' own rendering of them, which this reproduces, since the
        library's writer (the report of results it computed) cannot know a
        column's pandas dtype (integer counts of threads print as 13, not
        13.0).  '' where the tables are not pandas objects."""
        pd = _tables.pandas()
        tables = [self.overall, self.static_data] + [t for b in self.code_block_results
                                                     for t in (b.compute_time, b.resource_usage)]
        if pd is None or not all(isinstance(t, (pd.DataFrame, pd.Series)) for t in tables):
            return ''
        lines = ['Overall:', *_pandas_table(pd, self.overall, '\t'),
                 'Static Data:', *_pandas_table(pd, self.static_data, '\t'), 'Code Block Results:']
        for b in self.code_block_results:
            for label, value in (('Name', b.name), ('Num Timepoints', b.num_timepoints), ('Num Calls', b.num_calls),
                                 ('Num Non Empty Calls', b.num_non_empty_calls)):
                lines.append(f'\t{label}:'.ljust(len('\tNum Non Empty Calls:')) + f' {value}')
            lines += ['\tCompute Time:', *_pandas_table(pd, b.compute_time, '\t\t'),
                      '\tResource Usage:', *_pandas_table(pd, b.resource_usage, '\t\t'), '']
        return '\n'.join(lines) + '\n'

    def _json_from_fields(self) -> dict:
        """The JSON layout rebuilt from the fields, for an object unpickled
        without it (a pickle of the Python package's SubTrackingResults)."""
        def plain(table):
            return table.to_dict('index') if hasattr(table, 'to_dict') else dict(table)

        return {
            'overall': plain(self.overall),
            'static_data': {k: (v.item() if hasattr(v, 'item') else v) for k, v in dict(self.static_data).items()},
            'code_block_results': [
                {'name': b.name, 'num_timepoints': int(b.num_timepoints), 'num_calls': int(b.num_calls),
                 'num_non_empty_calls': int(b.num_non_empty_calls),
                 'compute_time': {k: float(v) for k, v in dict(b.compute_time).items()},
                 'resource_usage': plain(b.resource_usage)}
                for b in self.code_block_results],
        }


def _pandas_table(pd, table, indent):
    """The lines of a DataFrame (a Series as a row without a label) as the
    Python package prints its results: every row and column, floats
    rounded to 8 decimals and shown as Python shows a float."""
    if isinstance(table, pd.Series):
        table = table.to_frame().T
        table.index = ['']
    with pd.option_context('display.max_rows', None, 'display.max_columns', None, 'display.width', 5000,
                           'display.float_format', lambda x: str(float(f'{x:.8f}'))):
        text = str(table)
    return [indent + line for line in text.splitlines()]


def _check_extension(path):
    if path is not None and not os.fspath(path).endswith(('.csv', '.sqlite')):
        raise ValueError(f'Invalid file name: "{path}". Valid file extensions are ".csv" and ".sqlite".')


def _require_pandas(what):
    pd = _tables.pandas()
    if pd is None:
        raise ImportError(f'gpu_tracker: SubTrackingAnalyzer.{what} returns pandas objects: install pandas')
    return pd


def _read_table(path, part):
    """A tracking or sub-tracking file's table as a DataFrame: part 'static'
    (the static data), 'data' (timepoints or marks).  The Python package's
    layout: a CSV tracking file has its static data in lines 1-2 and its
    timepoints from line 3; SQLite files have tables static_data and data."""
    pd = _require_pandas('its table readers')
    if path.endswith('.sqlite'):
        import sqlite3
        with contextlib.closing(sqlite3.connect(f'file:{os.path.abspath(path)}?mode=ro', uri=True)) as con:
            table = 'static_data' if part == 'static' else 'data'
            return pd.read_sql_query(f'SELECT * FROM {table}', con)
    if part == 'static':
        return pd.read_csv(path, nrows=1)
    return pd.read_csv(path, skiprows=2 if part == 'timepoints' else 0)


class SubTrackingAnalyzer:
    """Analyzes a tracking file with its sub-tracking file (CSV or SQLite).
    Either may be None for the methods that do not read it, as in the
    Python package (combine_sub_tracking_files needs no tracking file)."""

    def __init__(self, tracking_file: str | None, sub_tracking_file: str, *, host: str | None = None):
        """host: analyze only the marks of this host (a sub-tracking file
        combined from several nodes; the tracking file must be that host's).
        None: the marks must all be of one host."""
        _check_extension(tracking_file)
        _check_extension(sub_tracking_file)
        self.tracking_file = tracking_file
        self.sub_tracking_file = sub_tracking_file
        self.host = host

    def _analyze(self, sub_tracking_file):
        if self.tracking_file is None:
            raise ValueError('the tracking file is required to analyze the sub-tracking file')
        handle = ctypes.c_void_p()
        err = _lib.Error()
        opts = _lib.AnalyzeOptions()
        _lib.check(_lib.require('gt_analyze_options_init')(ctypes.byref(opts), _lib.STRUCT_VERSION))
        opts.sub_tracking_file = _lib.encode(sub_tracking_file)
        opts.host = _lib.encode(self.host)
        status = _lib.require('gt_analyze')(_lib.encode(self.tracking_file), ctypes.byref(opts),
                                            ctypes.byref(handle), ctypes.byref(err))
        _check_files(status, err.message, (self.tracking_file, sub_tracking_file))
        return SubTrackingResults._from_json(*_take_report(handle, 'gt_results_string', 'gt_results_free'))

    def sub_tracking_results(self) -> SubTrackingResults:
        """Statistics of the whole session and of every code block."""
        return self._analyze(self.sub_tracking_file)

    def read_static_data(self):
        """The tracking file's static data (units, capacities, counts): a
        Series with pandas, else a dict."""
        return self._analyze(None).static_data

    def overall_timepoint_results(self):
        """min, max, mean and std of every measurement over all timepoints:
        a DataFrame (measurement x statistic) with pandas, else a dict."""
        return self._analyze(None).overall

    def load_code_block_names(self) -> list[str]:
        """The names of the code blocks of the sub-tracking file, sorted."""
        return sorted(set(_read_table(self.sub_tracking_file, 'data')['code_block_name']))

    def load_timestamp_pairs(self, code_block_name: str) -> list[tuple[float, float]]:
        """(start, stop) of every call of the code block, in the order of
        host (under Slurm), process ID, then time; ValueError for marks that do not pair."""
        calls = ctypes.POINTER(ctypes.c_double)()
        n = ctypes.c_size_t()
        err = _lib.Error()
        status = _lib.require('gt_subtrack_calls')(_lib.encode(self.sub_tracking_file), code_block_name.encode(),
                                                   ctypes.byref(calls), ctypes.byref(n), ctypes.byref(err))
        _check_files(status, err.message, (self.sub_tracking_file,))
        try:
            return [(calls[2 * i], calls[2 * i + 1]) for i in range(n.value)]
        finally:
            _lib.lib.gt_calls_free(ctypes.byref(calls))

    def load_timepoints(self, timestamp_pairs):
        """The tracking file's timepoints within any of the (start, stop)
        pairs, ends included, in file order, as a DataFrame: indexed by
        their rows' places in a CSV file, from 0 for a SQLite file, as the
        package's are."""
        timepoints = _read_table(self.tracking_file, 'timepoints')
        inside = timepoints['timestamp'] != timepoints['timestamp']  # all False, of the frame's index
        for start, stop in timestamp_pairs:
            inside |= (timepoints['timestamp'] >= start) & (timepoints['timestamp'] <= stop)
        if self.tracking_file.endswith('.sqlite'):
            # The package selects these rows with a query: numbered from 0.
            return timepoints[inside].reset_index(drop=True)
        return timepoints[inside]

    def combine_sub_tracking_files(self, files):
        """Combines sub-tracking files (from several processes, say) into
        sub_tracking_file, which must not exist yet (ValueError otherwise).
        files: a list of paths, or a single directory whose .csv and .sqlite
        files are all combined."""
        if isinstance(files, (str, os.PathLike)):
            files = [files]
        files = [os.fspath(f) for f in files]
        if len(files) == 1 and os.path.isdir(files[0]):
            directory = files[0]
            out = os.path.abspath(self.sub_tracking_file)
            files = sorted(os.path.join(directory, f) for f in os.listdir(directory)
                           if f.endswith(('.csv', '.sqlite')) and not f.startswith('.')
                           and os.path.abspath(os.path.join(directory, f)) != out)
        if not files:
            raise ValueError('no sub-tracking files to combine')
        if os.path.exists(self.sub_tracking_file):
            raise ValueError(f'Cannot create sub-tracking file {self.sub_tracking_file}. File already exists.')
        ext = '.csv' if self.sub_tracking_file.endswith('.csv') else '.sqlite'
        for f in files:
            if not f.endswith(ext):
                raise ValueError(f'File {f} does not end with the same extension as {self.sub_tracking_file}. '
                                 f'Must end in "{ext}".')
        inputs = _lib.c_strings(files)
        err = _lib.Error()
        status = _lib.require('gt_subtrack_combine')(_lib.encode(self.sub_tracking_file), inputs, len(files),
                                                     ctypes.byref(err))
        if status == _lib.GT_ERR_EXISTS:  # created by another process since the check
            raise ValueError(f'Cannot create sub-tracking file {self.sub_tracking_file}. File already exists.')
        _check_files(status, err.message, files)


def _check_files(status, message, paths):
    """Raises the exception for a failed analysis of files, as the Python
    package raises it: FileNotFoundError (errno ENOENT) for an input that
    does not exist, the package's words for marks that do not pair."""
    if status == _lib.GT_OK:
        return
    if status == _lib.GT_ERR_IO:
        for path in paths:
            if path is not None and not os.path.exists(path):
                raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
    if status == _lib.GT_ERR_FORMAT:
        message = _package_pair_message(message)
    _lib.check(status, message)


def _package_pair_message(message: str) -> str:
    """The Python package's wording of a pairing error, which scripts match:
    "Sub-tracking file is invalid. Detected timestamp pair (a, b) ...".  The
    library's message, which also names the file and block, is kept for any
    other error."""
    found = re.search(r'timestamp pair (\(.*?\)) (.*)$', message)
    if not found:
        return message
    return f'Sub-tracking file is invalid. Detected timestamp pair {found.group(1)} {found.group(2)}.'


@dclass.dataclass
class ComparisonResults(_Report):
    """Each statistic compared across sessions: Series (session name ->
    value, smallest first) with pandas, else dicts.  overall_resource_usage:
    measurement -> Series; code_block_resource_usage: measurement -> code
    block -> Series; code_block_compute_time: code block -> Series."""
    overall_resource_usage: dict
    code_block_resource_usage: dict
    code_block_compute_time: dict
    @classmethod
    def _from_json(cls, d: dict, text: str) -> ComparisonResults:
        # null from the library where a session has no figure: NaN, as in the package.
        for key in ('overall_resource_usage', 'code_block_resource_usage', 'code_block_compute_time'):
            _nan_for_none(d.get(key))

        def s(values):
            return _tables.series(values, dtype='float64')
        return cls({k: s(v) for k, v in d.get('overall_resource_usage', {}).items()},
                   {k: {b: s(v) for b, v in blocks.items()}
                    for k, blocks in d.get('code_block_resource_usage', {}).items()},
                   {b: s(v) for b, v in d.get('code_block_compute_time', {}).items()})._set_report(d, text)


_STATISTICS = ('min', 'max', 'mean', 'std')


def _str_of_quoted_name(value, quote=None):
    return str(value)


class _PackageUnpickler(pickle.Unpickler):
    """Loads the Python package's pickles where its environment is not
    installed: they name numpy 2's modules (numpy._core), which numpy 1 has
    as numpy.core, and SQLAlchemy's quoted_name (a str subclass) for the
    static data's column names, read back as plain str without
    SQLAlchemy.  Everything else loads as pickle.load loads it."""

    def find_class(self, module, name):
        if module.startswith('numpy._core'):
            try:
                return super().find_class(module, name)
            except ImportError:
                module = 'numpy.core' + module[len('numpy._core'):]
        elif module == 'sqlalchemy.sql.elements' and name == 'quoted_name':
            try:
                return super().find_class(module, name)
            except ImportError:
                return _str_of_quoted_name
        return super().find_class(module, name)


def _null_for_nan(value):
    """A copy of a JSON value with null for NaN (and infinities), as the
    library writes and reads a statistic without timepoints."""
    if isinstance(value, dict):
        return {k: _null_for_nan(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_null_for_nan(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _load_results(path: str):
    """(SubTrackingResults, its JSON as a dict) of a results file: JSON as
    `sub-track analyze -f json` writes it, or a pickled SubTrackingResults
    as the Python package's scripts store them.  Like the Python package,
    this unpickles the file: compare only results files you trust."""
    with open(path, 'rb') as f:
        data = f.read()
    if data[:1] != b'\x80':  # not a pickle: JSON, which the library checks in detail
        non_finite = []
        try:
            d = json.loads(data, parse_constant=lambda c: non_finite.append(c) or float(c))
        except ValueError:
            return None, None
        if not (isinstance(d, dict) and 'overall' in d):
            return None, None
        # NaN where a statistic has no timepoints, as the package's to_json()
        # and `python3 -m gpu_tracker` write it: not JSON to the library,
        # which then reads a copy with null there.
        copy = json.loads(json.dumps(d)) if non_finite else None
        return SubTrackingResults._from_json(d, ''), copy
    results = _PackageUnpickler(io.BytesIO(data)).load()
    if not isinstance(results, SubTrackingResults):
        raise ValueError(f"'{path}' holds a pickled {type(results).__name__}, not SubTrackingResults")
    return results, results.to_json()


# The library's wording of a mismatch -> the Python package's, which scripts match.
_MISMATCHES = (
    (re.compile(r"sessions have different numbers of code blocks: '.*' \('.*'\) has (\d+), '(.*)' \('.*'\) "
                r"has (\d+)$", re.S),
     'All sub-tracking results must have the same number of code blocks. The first has {0} code blocks but '
     'tracking session "{1}" has {2} code blocks.'),
    (re.compile(r"code block '(.*)' of session '(.*)' does not match code block '(.*)' of session '(.*)'$", re.S),
     'Code block name "{0}" of tracking session "{1}" does not match code block name "{2}" of tracking '
     'session "{3}"'),
)


class TrackingComparison:
    """Compares tracking sessions.  file_path_map: session name -> path of its
    results: JSON in the layout of SubTrackingResults.to_json() (what
    `gpu-tracker sub-track analyze -f json` writes), or a pickled
    SubTrackingResults as the Python package's scripts store them.  As in
    the package, the sessions are matched on construction: ValueError when
    their code blocks differ; results_map holds each session's results."""

    def __init__(self, file_path_map: dict):
        if not file_path_map:
            raise ValueError('file_path_map is empty: give at least one session name and results file')
        self.file_path_map = dict(file_path_map)
        self.results_map = {}
        self._json = {}
        for name, path in self.file_path_map.items():
            self.results_map[name], self._json[name] = _load_results(os.fspath(path))
        # The package's first session is the first name in sorted order.
        first = min(self.file_path_map)
        order = [first] + [n for n in self.file_path_map if n != first]
        self._run(order, 'mean', log_warnings=True)

    def compare(self, statistic: str = 'mean') -> ComparisonResults:
        """Compares the sessions on the statistic: 'min', 'max', 'mean' or 'std'."""
        if statistic not in _STATISTICS:
            raise ValueError(f"Invalid summary statistic '{statistic}'. Valid values are {' '.join(_STATISTICS)}.")
        return self._run(list(self.file_path_map), statistic, log_warnings=False)

    def _run(self, names, statistic, log_warnings):
        """The library's comparison of the sessions in names' order, on
        files it can read: a pickle's results go through a JSON copy, and
        an error naming the copy names the user's file instead."""
        with tempfile.TemporaryDirectory() as directory:
            files, copies = [], {}
            for i, name in enumerate(names):
                path = os.fspath(self.file_path_map[name])
                if self._json[name] is not None:
                    copy = os.path.join(directory, f'{i}.json')
                    with open(copy, 'w') as f:
                        json.dump(_null_for_nan(self._json[name]), f, allow_nan=False)
                    copies[copy] = path
                    path = copy
                files.append(path)
            try:
                return self._compare(names, files, statistic, log_warnings)
            except ValueError as error:
                message = str(error)
                for pattern, package_text in _MISMATCHES:
                    found = pattern.match(message)
                    if found:
                        raise ValueError(package_text.format(*found.groups())) from None
                for copy, path in copies.items():
                    message = message.replace(copy, path)
                raise type(error)(message) from None

    @staticmethod
    def _compare(names, files, statistic, log_warnings):
        c_names = _lib.c_strings(names)
        c_files = _lib.c_strings(files)
        warnings = []
        log_fn = _c_log(warnings)
        handle = ctypes.c_void_p()
        err = _lib.Error()
        opts = _lib.CompareOptions()
        _lib.check(_lib.require('gt_compare_options_init')(ctypes.byref(opts), _lib.STRUCT_VERSION))
        opts.statistic = _lib.encode(statistic)
        opts.log = log_fn
        status = _lib.require('gt_compare')(c_names, c_files, len(names), ctypes.byref(opts), ctypes.byref(handle),
                                            ctypes.byref(err))
        if log_warnings:
            for message in warnings:
                log.warning(message)
        if status != _lib.GT_OK:
            _lib.check(status, err.message)
        return ComparisonResults._from_json(*_take_report(handle, 'gt_comparison_string', 'gt_comparison_free'))
