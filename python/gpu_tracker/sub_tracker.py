"""Sub-tracking (SubTracker, sub_track), its analysis (SubTrackingAnalyzer)
and the comparison of sessions (TrackingComparison), with the Python
package's names and arguments.  Files, statistics and reports are the C
library's; this module turns its JSON into the result objects."""
from __future__ import annotations

import atexit
import ctypes
import dataclasses as dclass
import functools
import inspect
import json
import logging
import os
import pickle
import sys
import tempfile
import threading

from . import _lib, _tables

log = logging.getLogger(__name__)

START, STOP = 0, 1


class _SubTrackingFiles:
    """The sub-tracking files this process writes, one open C handle per path.
    The first SubTracker of a path creates the file (an existing one only with
    overwrite=True); later ones for the same path add their marks to it, so a
    loop of `with SubTracker(...)` records every call, as the Python package
    does."""

    def __init__(self):
        self._lock = threading.Lock()
        self._files = {}  # (pid, absolute path) -> (handle, (st_dev, st_ino))

    def get(self, path: str, overwrite: bool):
        key = (os.getpid(), os.path.abspath(path))  # a forked child opens its own
        with self._lock:
            entry = self._files.get(key)
            if entry is not None and self._same_file(path, entry[1]):
                return entry[0]
            # The file was removed or replaced since: start it again.
            handle = ctypes.c_void_p()
            err = _lib.Error()
            status = _lib.require('gt_subtracker_open')(_lib.encode(path), int(bool(overwrite)),
                                                        ctypes.byref(handle), ctypes.byref(err))
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
            for (pid, _), (handle, _) in self._files.items():
                if pid == os.getpid():
                    self._free(handle)
            self._files.clear()


_files = _SubTrackingFiles()
atexit.register(_files.close_all)


def _caller_name(depth: int) -> str:
    frame = sys._getframe(depth)  # inspect.stack() would read every frame's source file
    return f'{os.path.relpath(frame.f_code.co_filename)}:{frame.f_lineno}'


class SubTracker:
    """Marks the start and stop of a code block in a sub-tracking file, as a
    context manager.  code_block_name defaults to "<relative path>:<line>" of
    the line creating it; sub_tracking_file to "<process ID>.csv"."""

    def __init__(self, code_block_name: str | None = None, sub_tracking_file: str | None = None,
                 overwrite: bool = False):
        if code_block_name is not None and '\0' in str(code_block_name):
            # The C library takes NUL-terminated names: it would be cut there.
            raise ValueError(f'code_block_name {code_block_name!r} contains a NUL character')
        self.code_block_name = code_block_name if code_block_name is not None else _caller_name(2)
        self.sub_tracking_file = sub_tracking_file if sub_tracking_file is not None else f'{os.getpid()}.csv'
        self.overwrite = overwrite
        self._handle = _files.get(self.sub_tracking_file, overwrite)

    def _mark(self, position: int):
        status = _lib.require('gt_subtracker_mark')(self._handle, self.code_block_name.encode(), position)
        if status != _lib.GT_OK:
            message = _lib.lib.gt_subtracker_error(self._handle)
            _lib.check(status, message.decode('utf-8', 'replace') if message else 'cannot write the mark')

    def __enter__(self) -> SubTracker:
        self._mark(START)
        return self

    def __exit__(self, *exc):
        self._mark(STOP)
        return False


def sub_track(code_block_name: str | None = None, sub_tracking_file: str | None = None, overwrite: bool = False):
    """Decorator: sub-tracks every call of the function.  code_block_name
    defaults to "<relative path>:<function name>"."""
    def decorator(func):
        name = code_block_name
        if name is None:
            name = f'{os.path.relpath(inspect.getfile(func))}:{func.__name__}'

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
        return self._text

    def to_json(self) -> dict:
        return json.loads(json.dumps(self._json or self._json_from_fields()))  # a copy the caller may change

    def _json_from_fields(self) -> dict:
        raise NotImplementedError


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
        blocks = [CodeBlockResults(b['name'], b['num_timepoints'], b['num_calls'], b['num_non_empty_calls'],
                                   _tables.series(b['compute_time'], dtype='float64'),
                                   _tables.frame(b['resource_usage']))
                  for b in d.get('code_block_results', [])]
        return cls(_tables.frame(d['overall']), _tables.series(d['static_data'], name=0, dtype=object),
                   blocks)._set_report(d, text)


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


class SubTrackingAnalyzer:
    """Analyzes a tracking file with its sub-tracking file (CSV or SQLite)."""

    def __init__(self, tracking_file: str | None, sub_tracking_file: str):
        self.tracking_file = tracking_file
        self.sub_tracking_file = sub_tracking_file

    def sub_tracking_results(self) -> SubTrackingResults:
        """Statistics of the whole session and of every code block."""
        if self.tracking_file is None:
            raise ValueError('the tracking file is required to analyze the sub-tracking file')
        handle = ctypes.c_void_p()
        err = _lib.Error()
        status = _lib.require('gt_analyze')(_lib.encode(self.tracking_file), _lib.encode(self.sub_tracking_file),
                                            ctypes.byref(handle), ctypes.byref(err))
        _lib.check(status, err.message)
        report = _take_report(handle, 'gt_results_string', 'gt_results_free')
        return SubTrackingResults._from_json(*report)

    def combine_sub_tracking_files(self, files):
        """Combines sub-tracking files (from several processes, say) into
        sub_tracking_file, which must not exist yet.  files: a list of paths,
        or a single directory whose files with the same extension as
        sub_tracking_file are all combined."""
        if isinstance(files, (str, os.PathLike)):
            files = [files]
        files = [os.fspath(f) for f in files]
        if len(files) == 1 and os.path.isdir(files[0]):
            directory = files[0]
            ext = os.path.splitext(self.sub_tracking_file)[1]
            out = os.path.abspath(self.sub_tracking_file)
            files = sorted(os.path.join(directory, f) for f in os.listdir(directory)
                           if f.endswith(ext) and os.path.abspath(os.path.join(directory, f)) != out)
        if not files:
            raise ValueError('no sub-tracking files to combine')
        inputs = _lib.c_strings(files)
        err = _lib.Error()
        status = _lib.require('gt_subtrack_combine')(_lib.encode(self.sub_tracking_file), inputs, len(files),
                                                     ctypes.byref(err))
        _lib.check(status, err.message)


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
        def s(values):
            return _tables.series(values, dtype='float64')
        return cls({k: s(v) for k, v in d.get('overall_resource_usage', {}).items()},
                   {k: {b: s(v) for b, v in blocks.items()}
                    for k, blocks in d.get('code_block_resource_usage', {}).items()},
                   {b: s(v) for b, v in d.get('code_block_compute_time', {}).items()})._set_report(d, text)


def _as_json_file(path: str, directory: str, index: int) -> str:
    """path itself for a JSON results file; for a pickled SubTrackingResults
    (what scripts written for the Python package store), a JSON copy of it in
    directory.  Like the Python package, this unpickles the file: compare only
    results files you trust."""
    with open(path, 'rb') as f:
        if f.read(1) != b'\x80':  # not a pickle: the library reads it, or says what is wrong
            return path
        f.seek(0)
        results = pickle.load(f)
    if not isinstance(results, SubTrackingResults):
        raise ValueError(f"'{path}' holds a pickled {type(results).__name__}, not SubTrackingResults")
    copy = os.path.join(directory, f'{index}.json')
    with open(copy, 'w') as f:
        json.dump(results.to_json(), f)
    return copy


class TrackingComparison:
    """Compares tracking sessions.  file_path_map: session name -> path of its
    results: JSON in the layout of SubTrackingResults.to_json() (what
    `gpu-tracker sub-track analyze -f json` writes), or a pickled
    SubTrackingResults as the Python package's scripts store them."""

    def __init__(self, file_path_map: dict):
        if not file_path_map:
            raise ValueError('file_path_map is empty: give at least one session name and results file')
        self.file_path_map = dict(file_path_map)

    def compare(self, statistic: str = 'mean') -> ComparisonResults:
        """Compares the sessions on the statistic: 'min', 'max', 'mean' or 'std'."""
        names = list(self.file_path_map)
        with tempfile.TemporaryDirectory() as directory:
            files = [_as_json_file(os.fspath(self.file_path_map[n]), directory, i) for i, n in enumerate(names)]
            return self._compare(names, files, statistic)

    @staticmethod
    def _compare(names, files, statistic):
        c_names = _lib.c_strings(names)
        c_files = _lib.c_strings(files)
        warnings = []
        log_fn = _c_log(warnings)
        handle = ctypes.c_void_p()
        err = _lib.Error()
        status = _lib.require('gt_compare')(c_names, c_files, len(names), _lib.encode(statistic), log_fn, None,
                                            ctypes.byref(handle), ctypes.byref(err))
        for message in warnings:
            log.warning(message)
        _lib.check(status, err.message)
        return ComparisonResults._from_json(*_take_report(handle, 'gt_comparison_string', 'gt_comparison_free'))
