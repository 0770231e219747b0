# SPDX-License-Identifier: MIT
"""Tracker and the ResourceUsage data classes, with the Python package's
names, arguments, defaults and errors.  The measuring is done by the C
library on a background thread of this process (the Python package starts a
separate tracking process instead)."""
from __future__ import annotations

import atexit
import ctypes
import dataclasses as dclass
import enum
import json
import logging
import os
import re
import weakref

from . import _lib
from ._units import RAM_UNITS
from .energy import ENERGY_UNITS
from .run_extras import RunExtras

log = logging.getLogger(__name__)

# The C options hold a C int: a larger value would wrap to another PID or
# core count instead of being refused.
_INT_MAX = 2 ** 31 - 1
_RAM_UNITS = RAM_UNITS
_TIME_UNITS = ('seconds', 'minutes', 'hours', 'days')


# The Python package's data classes, with its names and defaults, so that
# its code that builds them (and pickles of them) work with either package.
@dclass.dataclass
class RSSValues:
    total_rss: float = 0.
    private_rss: float = 0.
    shared_rss: float = 0.


@dclass.dataclass
class MaxRAM:
    unit: str
    system_capacity: float
    system: float = 0.
    main: RSSValues = dclass.field(default_factory=RSSValues)
    descendants: RSSValues = dclass.field(default_factory=RSSValues)
    combined: RSSValues = dclass.field(default_factory=RSSValues)


@dclass.dataclass
class MaxGPURAM:
    unit: str
    system_capacity: float
    system: float = 0.
    main: float = 0.
    descendants: float = 0.
    combined: float = 0.


@dclass.dataclass
class ProcessingUnitPercentages:
    max_sum_percent: float = 0.
    max_hardware_percent: float = 0.
    mean_sum_percent: float = 0.
    mean_hardware_percent: float = 0.


# The name earlier versions of this package gave it.
Percentages = ProcessingUnitPercentages


@dclass.dataclass
class CPUUtilization:
    system_core_count: int
    n_expected_cores: int
    system: ProcessingUnitPercentages = dclass.field(default_factory=ProcessingUnitPercentages)
    main: ProcessingUnitPercentages = dclass.field(default_factory=ProcessingUnitPercentages)
    descendants: ProcessingUnitPercentages = dclass.field(default_factory=ProcessingUnitPercentages)
    combined: ProcessingUnitPercentages = dclass.field(default_factory=ProcessingUnitPercentages)
    main_n_threads: int = 0
    descendants_n_threads: int = 0
    combined_n_threads: int = 0


@dclass.dataclass
class GPUUtilization:
    system_gpu_count: int
    n_expected_gpus: int
    gpu_percentages: ProcessingUnitPercentages = dclass.field(default_factory=ProcessingUnitPercentages)


@dclass.dataclass
class ComputeTime:
    unit: str
    time: float = 0.


@dclass.dataclass
class PeakRAM:
    """gpu-tracker's own: the kernel's resident-memory high-water marks, which
    no sampling interval can miss.  None where unavailable."""
    unit: str
    main: float | None
    largest_descendant: float | None
    # How each figure was obtained: 'exact', 'exact up to the end of tracking
    # (descendants still running)' or 'lower bound (sampled)'.
    main_method: str | None = None
    largest_descendant_method: str | None = None
    # What max_ram's figures are: sampled, lower bounds of the peaks.
    max_ram_method: str | None = None


@dclass.dataclass
class ResourceUsage:
    max_ram: MaxRAM
    max_gpu_ram: MaxGPURAM
    cpu_utilization: CPUUtilization
    gpu_utilization: GPUUtilization
    compute_time: ComputeTime
    peak_ram: PeakRAM | None = None
    _text: str = dclass.field(default='', repr=False, compare=False)
    # The report as the library wrote it, with gpu-tracker's own sections
    # (peak_ram, and GPU process utilization and power where measured).
    _json: dict | None = dclass.field(default=None, repr=False, compare=False)
    # gpu-tracker's own, filled by the Tracker (see run_extras.py); None when
    # not asked for or not measured.
    energy: object | None = None
    python_heap: object | None = None
    incremental: object | None = None
    torch_cuda_memory: list | None = None
    model_complexity: object | None = None

    def __str__(self):
        # Without the library's report (one unpickled from the Python
        # package, or built by hand), what the package's str() gives.
        return self._text or repr(self)

    # gpu-tracker's own attributes, kept in a pickle only as the report's
    # plain data (_json): a pickle then names no class the Python package
    # lacks, and loads there too; they are rebuilt from it on loading.
    _OWN = ('peak_ram', 'energy', 'python_heap', 'incremental', 'torch_cuda_memory', 'model_complexity')

    def __getstate__(self):
        state = dict(self.__dict__)
        if isinstance(self._json, dict):  # else (built by hand) they are kept as they are
            for own in self._OWN:
                state.pop(own, None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        d = state.get('_json')
        if isinstance(d, dict):
            self._own_from_json(d)

    def _own_from_json(self, d: dict):
        from .run_extras import PythonHeap, IncrementalPeaks
        from .energy import Energy
        from .torch_memory import TorchCUDAMemory
        from .model_complexity import ModelComplexity
        peak = d.get('peak_ram')
        self.peak_ram = PeakRAM(**peak) if peak is not None else None
        self.energy = Energy.from_json(d.get('energy'))
        self.python_heap = PythonHeap(**d['python_heap']) if 'python_heap' in d else None
        self.incremental = IncrementalPeaks(**d['incremental']) if 'incremental' in d else None
        self.torch_cuda_memory = ([TorchCUDAMemory(int(k.split('_', 1)[1]), **v)
                                   for k, v in d['torch_cuda_memory'].items()]
                                  if 'torch_cuda_memory' in d else None)
        self.model_complexity = ModelComplexity(**d['model_complexity']) if 'model_complexity' in d else None

    def to_json(self) -> dict:
        if self._json is not None:
            return json.loads(json.dumps(self._json))  # a copy the caller may change
        d = dclass.asdict(self)
        for private in ('_text', '_json'):
            del d[private]
        if d['peak_ram'] is None:  # the Python package's layout exactly
            del d['peak_ram']
        for own in ('energy', 'python_heap', 'incremental', 'torch_cuda_memory', 'model_complexity'):
            if d[own] is None:
                del d[own]
        return d

    @classmethod
    def _from_json(cls, d: dict, text: str) -> ResourceUsage:
        def rss(x):
            return RSSValues(**x)

        def pct(x):
            return ProcessingUnitPercentages(**x)

        r, g, c, u, t = (d['max_ram'], d['max_gpu_ram'], d['cpu_utilization'], d['gpu_utilization'],
                         d['compute_time'])
        peak = d.get('peak_ram')
        return cls(
            max_ram=MaxRAM(r['unit'], r['system_capacity'], r['system'], rss(r['main']),
                           rss(r['descendants']), rss(r['combined'])),
            max_gpu_ram=MaxGPURAM(**g),
            cpu_utilization=CPUUtilization(
                c['system_core_count'], c['n_expected_cores'], pct(c['system']), pct(c['main']),
                pct(c['descendants']), pct(c['combined']), c['main_n_threads'],
                c['descendants_n_threads'], c['combined_n_threads']),
            gpu_utilization=GPUUtilization(u['system_gpu_count'], u['n_expected_gpus'],
                                           pct(u['gpu_percentages'])),
            compute_time=ComputeTime(**t),
            peak_ram=PeakRAM(**peak) if peak is not None else None,
            _text=text, _json=d)


def _package_message(status, message, sleep_time, tracking_file):
    """The Python package's words for the library's refusal of a Tracker's
    arguments, where scripts and tests match them; any other message as the
    library wrote it."""
    found = re.fullmatch(r"tracking file '(.*)' already exists; .*", message, re.S)
    if status == _lib.GT_ERR_EXISTS and found:  # the tracking file, or a per-process or per-GPU file beside it
        return f'File {found.group(1)} already exists. Set overwrite to True to overwrite the existing file.'
    found = re.fullmatch(r'sleep time of \S+ is invalid: must be (.*)', message)
    if found:
        return f'Sleep time of {sleep_time} is invalid. Must be {found.group(1)}.'
    if re.fullmatch(r"invalid tracking file '.*': the extension must be .*", message, re.S):
        return f'Invalid file name: "{tracking_file}". Valid file extensions are ".csv" and ".sqlite".'
    return message


class _TrackerState(enum.Enum):
    NEW = 0
    STARTED = 1
    STOPPED = 2


def _unit(value, valid, unit_type):
    if value not in valid:
        raise ValueError(f'"{value}" is not a valid {unit_type} unit. Valid values are '
                         f'{", ".join(sorted(valid))}')
    return valid.index(value)


# The library's one warning about energy (tracker.c), said at every Tracker()
# on a machine without RAPL counters: a warning only where energy was asked
# for (an energy_unit given), else at debug level, as the Python package,
# which measures no energy, says nothing.
_ENERGY_WARNING = 'CPU energy is not measured:'
_ENERGY_ASKED = 1  # log_ctx of a Tracker given an energy_unit


def _log_to_python(ctx, message):
    text = message.decode('utf-8', 'replace')
    if text.startswith(_ENERGY_WARNING) and ctx != _ENERGY_ASKED:
        log.debug(text)
    else:
        log.warning(text)


# One C callback for every tracker: it must outlive each tracker's thread.
_LOG_CALLBACK = _lib.LOG_FN(_log_to_python)
# Trackers not yet stopped are freed at exit, before the interpreter is torn
# down, so no sampling thread calls into an interpreter that is going away.
_alive = weakref.WeakSet()


@atexit.register
def _release_alive():
    for tracker in list(_alive):
        tracker._release()


def _disown_after_fork():
    """In a forked child the sampling threads of the parent's trackers do not
    exist and their locks may be held by a thread that is gone: the child's
    copies must never call into the library (freeing one would join a thread
    that is not there, and hang).  They are left inert; their memory is the
    parent's copy and is not freed."""
    for tracker in list(_alive):
        tracker._handle = None
        tracker._forked = True
    _alive.clear()


os.register_at_fork(after_in_child=_disown_after_fork)


class Tracker:
    """Runs a thread that tracks the computational-resource usage of this
    process (or `process_id`) and its descendants, from start() to stop() or
    for the duration of a `with` block.  Arguments are the Python package's;
    `resource_usage_file`, `n_join_attempts` and `join_timeout` are accepted
    for compatibility and unused: there is no tracking process to join, and
    the usage up to an exception is kept in memory."""

    State = _TrackerState

    def __init__(self, sleep_time: float = 1.0, ram_unit: str = 'gigabytes', gpu_ram_unit: str = 'gigabytes',
                 time_unit: str = 'hours', n_expected_cores: int | None = None, gpu_uuids=None,
                 disable_logs: bool = False, process_id: int | None = None,
                 resource_usage_file: str | None = None, n_join_attempts: int = 5, join_timeout: float = 10.0,
                 gpu_brand: str | None = None, tracking_file: str | None = None, overwrite: bool = False,
                 python_heap: bool = False, logger: logging.Logger | None = None, energy_unit: str | None = None,
                 model=None, input_size=None, per_process: bool = False, per_gpu: bool = False,
                 walk_budget: float | None = None, events: str = 'auto'):
        self._handle = ctypes.c_void_p()
        self._forked = False
        self._state = _TrackerState.NEW
        self._vanished = False
        self._process_id_given = process_id is not None
        self._disable_logs = bool(disable_logs)
        self.resource_usage = None  # set by stop(), as in the Python package
        opts = _lib.Options()
        _lib.check(_lib.lib.gt_options_init(ctypes.byref(opts), _lib.STRUCT_VERSION),
                   f'gt_options version {_lib.STRUCT_VERSION} is unknown to the C library {_lib.library_path}')
        if isinstance(sleep_time, bool) or not isinstance(sleep_time, (int, float)):
            raise TypeError(f'sleep_time must be a number of seconds, not {type(sleep_time).__name__}')
        opts.sleep_time = float(sleep_time)
        opts.ram_unit = _unit(ram_unit, _RAM_UNITS, 'RAM')
        opts.gpu_ram_unit = _unit(gpu_ram_unit, _RAM_UNITS, 'GPU RAM')
        opts.time_unit = _unit(time_unit, _TIME_UNITS, 'time')
        opts.energy_unit = _unit('joules' if energy_unit is None else energy_unit, ENERGY_UNITS, 'energy')
        if n_expected_cores is not None:
            if (isinstance(n_expected_cores, bool) or not isinstance(n_expected_cores, int) or
                    not 1 <= n_expected_cores <= _INT_MAX):
                raise ValueError(f'n_expected_cores of {n_expected_cores!r} is invalid: must be a positive integer')
            opts.n_expected_cores = n_expected_cores
        if gpu_uuids is not None:
            uuids = [gpu_uuids] if isinstance(gpu_uuids, str) else list(gpu_uuids)
            if not uuids:
                raise ValueError('gpu_uuids is not None but the set is empty. Please provide a set of at least one '
                                 'GPU UUID.')
            self._gpu_uuids = ','.join(uuids).encode()
            opts.gpu_uuids = self._gpu_uuids
        opts.disable_logs = bool(disable_logs)
        if gpu_brand is not None:
            brand = ctypes.c_int()
            brands = _lib.gpu_brands()
            if gpu_brand not in brands or _lib.lib.gt_gpu_brand_parse(gpu_brand.encode(),
                                                                   ctypes.byref(brand)) != _lib.GT_OK:
                quoted = [f'"{name}"' for name in brands]
                raise ValueError(f'"{gpu_brand}" is not a valid GPU brand. Supported values are '
                                 f'{", ".join(quoted[:-1])} and {quoted[-1]}.')
            opts.gpu_brand = brand.value
        if tracking_file is not None:
            self._tracking_file = _lib.encode(tracking_file)
            opts.tracking_file = self._tracking_file
        opts.overwrite = bool(overwrite)
        opts.per_process = bool(per_process)
        opts.per_gpu = bool(per_gpu)
        if walk_budget is not None:
            # A percent of one core, as --walk-budget takes it; the library
            # takes a share.
            if (isinstance(walk_budget, bool) or not isinstance(walk_budget, (int, float)) or
                    not 0 < walk_budget <= 100):
                raise ValueError(f'walk_budget of {walk_budget!r} is invalid: must be a percent of one core, above 0 '
                                 f'and at most 100')
            opts.walk_budget = walk_budget / 100
        # The event backend (the C library's gt_options.events): 'auto',
        # 'on' (fail where it cannot load) or 'off'.
        modes = {'auto': 0, 'on': 1, 'off': 2}
        if not isinstance(events, str) or events not in modes:
            raise ValueError(f"events of {events!r} is invalid: valid values are 'auto', 'on', 'off'")
        opts.events = modes[events]
        if process_id is not None:
            if isinstance(process_id, bool) or not isinstance(process_id, int) or not 1 <= process_id <= _INT_MAX:
                raise ValueError(f'process_id of {process_id!r} is invalid: must be a positive integer up to '
                                 f'{_INT_MAX}')
            opts.process_id = process_id
        opts.log = _LOG_CALLBACK
        opts.log_ctx = _ENERGY_ASKED if energy_unit is not None else None
        self.sleep_time = sleep_time
        self.tracking_file = tracking_file
        self.resource_usage_file = resource_usage_file
        self.n_join_attempts = n_join_attempts
        self.join_timeout = join_timeout
        self.process_id = process_id if process_id is not None else os.getpid()
        self._extras = RunExtras(python_heap, logger, model, input_size)
        err = _lib.Error()
        status = _lib.lib.gt_tracker_new(ctypes.byref(opts), ctypes.byref(self._handle), ctypes.byref(err))
        _lib.check(status, _package_message(status, err.message, sleep_time, tracking_file))
        _alive.add(self)
        if tracking_file is not None and self._extras.complexity is not None:
            self._record_complexity(self._extras.complexity)

    def _record_complexity(self, c):
        """The model's complexity in the tracking file's static data, after
        the Python package's columns (whose readers ignore the rest)."""
        for key, value in (('model_parameters', c.parameters), ('model_trainable_parameters', c.trainable_parameters),
                           ('model_macs', c.macs), ('model_not_counted', ','.join(c.not_counted)),
                           ('model_input_size', json.dumps(c.input_size))):
            err = _lib.Error()
            status = _lib.require('gt_tracker_add_static')(self._handle, key.encode(), str(value).encode(),
                                                           ctypes.byref(err))
            _lib.check(status, err.message)

    @property
    def state(self) -> Tracker.State:
        """NEW, then STARTED by start(), then STOPPED by stop()."""
        return self._state

    def __repr__(self):
        return f'State: {self._state.name}'

    def _require_stopped(self):
        if self.resource_usage is None:  # the Python package's words, typo included
            raise RuntimeError('Cannot display the tracker in string or JSON format before tracking completes. Exit '
                               'the content manager or call the stop() method before calling to_json() or str()')

    def __str__(self):
        self._require_stopped()
        return str(self.resource_usage)

    def __enter__(self) -> Tracker:
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def start(self):
        """Takes the first sample and starts tracking in the background."""
        if self._forked:
            raise RuntimeError('Cannot start tracking in a forked child: this Tracker belongs to the parent '
                               'process. Create a new Tracker in the child.')
        if self._state == _TrackerState.STARTED:
            raise RuntimeError('Cannot start tracking when tracking has already started.')
        if self._state == _TrackerState.STOPPED:
            raise RuntimeError('Cannot start tracking when tracking has already stopped.')
        err = _lib.Error()
        status = _lib.lib.gt_tracker_start(self._handle, ctypes.byref(err))
        if status == _lib.GT_ERR_NOPROC and self._process_id_given:
            # As the Python package: a warning, and a session with no usage.
            if not self._disable_logs:
                log.warning(f'The target process of ID {self.process_id} ended before tracking could begin.')
            self._vanished = True
        else:
            _lib.check(status, err.message)
        self._state = _TrackerState.STARTED
        self._extras.begin(self._usage())

    def stop(self):
        """Takes the last sample, stops tracking and sets resource_usage.  In a
        forked child a Tracker of the parent is inert: stop() does nothing
        there, and the parent's tracking goes on."""
        if self._forked:
            return
        if self._state == _TrackerState.NEW:
            raise RuntimeError('Cannot stop tracking when tracking has not started yet.')
        if self._state == _TrackerState.STOPPED:
            raise RuntimeError('Cannot stop tracking when tracking has already stopped.')
        self._state = _TrackerState.STOPPED
        _alive.discard(self)
        # The library stopped a tracker whose process had vanished at start.
        err = _lib.Error()
        status = _lib.GT_OK if self._vanished else _lib.lib.gt_tracker_stop(self._handle, ctypes.byref(err))
        message = err.message
        try:
            # The usage is kept even when the stop reports a failure (such as a
            # tracking file that could not be written), which is raised after.
            self.resource_usage = self._extras.finish(self._final_usage())
        finally:
            _lib.lib.gt_tracker_free(ctypes.byref(self._handle))
        _lib.check(status, message)

    def to_json(self) -> dict:
        """The resource usage as a dict, in the Python package's layout."""
        self._require_stopped()
        return self.resource_usage.to_json()

    def _usage(self) -> ResourceUsage:
        # One snapshot, allocated by the library, for both the text and the JSON.
        usage = ctypes.c_void_p()
        err = _lib.Error()
        _lib.check(_lib.lib.gt_tracker_usage_new(self._handle, ctypes.byref(usage), ctypes.byref(err)), err.message)
        try:
            text = _lib.to_string(_lib.lib.gt_usage_string, usage, _lib.FORMAT_TEXT)
            data = json.loads(_lib.to_string(_lib.lib.gt_usage_string, usage, _lib.FORMAT_JSON))
        finally:
            _lib.lib.gt_usage_free(ctypes.byref(usage))
        return ResourceUsage._from_json(data, text)

    def _final_usage(self) -> ResourceUsage:
        # After the stop the figures no longer move, so the text and the JSON
        # are two reports of one state; the report, unlike gt_usage, has every
        # figure of the library (the Other metrics section among them).
        text = _lib.tracker_report(self._handle, _lib.FORMAT_TEXT)
        return ResourceUsage._from_json(json.loads(_lib.tracker_report(self._handle, _lib.FORMAT_JSON)), text)

    def _release(self):
        if self._handle:
            _lib.lib.gt_tracker_free(ctypes.byref(self._handle))
        _alive.discard(self)

    def __del__(self):
        handle = getattr(self, '_handle', None)
        if handle:  # freeing stops a still-running sampling thread
            _lib.lib.gt_tracker_free(ctypes.byref(handle))
