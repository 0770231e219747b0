# SPDX-License-Identifier: MIT
"""Per-cell tracking in IPython and Jupyter: ``%load_ext gpu_tracker``.

After every cell one line says how long the cell took and, for RAM and GPU
RAM of the kernel process and its children (combined total RSS, as the
Tracker measures it): what the cell consumed (used after - used before), its
peak above the level at the start, and the total used after it.  The figures
of the last cell are ``gpu_tracker.last_cell_usage()``.

    %gpu_tracker                 show the settings
    %gpu_tracker off | on        stop / resume the per-cell line
    %gpu_tracker ram_unit=megabytes gpu_ram_unit=megabytes sleep_time=0.05 tracemalloc=on kernel_peak=on
    %gpu_tracker peaked=end gc_collect=off empty_cache=off compact=off gpu_poll=0.01

Cells that run ``%gpu_tracker`` get no line.  The RAM peak is the largest
sample (every sleep_time seconds) and, with kernel_peak=on (the default), the
kernel's high-water mark of the kernel process, reset at the start of each
cell (/proc/self/clear_refs), which no peak escapes however short.
tracemalloc=on (off by default) adds the Python heap's peak above its level at
the start of the cell, from the tracemalloc module; it slows Python code down
while it is on.

ipygpulogger's options: peaked=end reports the peak above the level at the
end of the cell (theirs) instead of above the start (ours; the line says
which); gc_collect=on (default) runs gc.collect() before each measurement,
so that unreachable cycles do not count; empty_cache=on (default) empties
PyTorch's CUDA cache before each measurement where the program uses it, so
NVML sees what tensors hold; compact=off prints a small table instead of the
line.  gpu_poll (default 0.001 s) is how often the cell's tracker samples
while a GPU is present, so that a GPU memory spike of a few milliseconds is
seen; off samples every sleep_time.  The unpacked figures are ipygpulogger's
7-tuple: consumed, peaked, used for RAM, then for GPU RAM, then the time.
"""
from __future__ import annotations

import dataclasses as dclass
import gc
import logging
import re
import tracemalloc

from . import _lib, torch_memory
from .python_heap import HeapPeak
from ._units import ram_divisor
from .tracker import Tracker, _RAM_UNITS

_ABBREVIATIONS = {'bytes': 'B', 'kilobytes': 'KB', 'megabytes': 'MB', 'gigabytes': 'GB', 'terabytes': 'TB'}


@dclass.dataclass
class CellUsage:
    """The figures of one cell.  RAM and GPU RAM in their units; GPU figures
    are None when there is no GPU, python_heap_peak when tracemalloc is off."""
    execution_count: int | None
    wall_time: float
    ram_unit: str
    ram_consumed: float
    ram_peaked: float
    ram_used: float
    gpu_ram_unit: str
    gpu_ram_consumed: float | None
    gpu_ram_peaked: float | None
    gpu_ram_used: float | None
    python_heap_peak: float | None = None
    peaked_over: str = 'start'  # the peaks are above the level at the 'start' or the 'end' of the cell
    gpu_unavailable: str | None = None  # why there are no GPU figures, where known
    _say_why = True  # the line gives gpu_unavailable (the first line does; later ones just say "no GPU")

    def __iter__(self):
        """ipygpulogger's 7 fields: RAM consumed, peaked, used; GPU RAM
        consumed, peaked, used; wall time."""
        return iter((self.ram_consumed, self.ram_peaked, self.ram_used, self.gpu_ram_consumed,
                     self.gpu_ram_peaked, self.gpu_ram_used, self.wall_time))

    def __len__(self):
        return 7

    def __getitem__(self, i):
        return tuple(self)[i]

    def _no_gpu(self):
        return f'no GPU: {self.gpu_unavailable}' if self.gpu_unavailable and self._say_why else 'no GPU'

    def table(self) -> str:
        """The figures as a small table, as ipygpulogger prints them."""
        where = f'In [{self.execution_count}] ' if self.execution_count is not None else ''
        rows = [f'gpu-tracker: {where}{round(self.wall_time, 3)} s, peaks above the {self.peaked_over}',
                f'{"":9}{"Consumed":>12}{"Peaked":>12}{"Used":>12}']
        for name, unit, figures in (('RAM', self.ram_unit, tuple(self)[:3]),
                                    ('GPU RAM', self.gpu_ram_unit, tuple(self)[3:6])):
            if figures[2] is None:
                rows.append(f'{name + ":":9}{self._no_gpu()}')
                continue
            rows.append(f'{name + ":":9}' + ''.join(f'{round(x, 3):>12}' for x in figures)
                        + f' {_ABBREVIATIONS[unit]}')
        if self.python_heap_peak is not None:
            rows.append(f'Python heap peaked {round(self.python_heap_peak, 3)} {_ABBREVIATIONS[self.ram_unit]}')
        return '\n'.join(rows)

    def __str__(self):
        def f(x, unit):
            return f'{round(x, 3)} {_ABBREVIATIONS[unit]}'

        where = f'In [{self.execution_count}] ' if self.execution_count is not None else ''
        line = (f'gpu-tracker: {where}{round(self.wall_time, 3)} s | RAM: consumed '
                f'{f(self.ram_consumed, self.ram_unit)}, peaked {f(self.ram_peaked, self.ram_unit)} '
                f'above {self.peaked_over}, used {f(self.ram_used, self.ram_unit)}')
        if self.python_heap_peak is not None:
            line += f', Python heap peaked {f(self.python_heap_peak, self.ram_unit)}'
        if self.gpu_ram_used is None:
            line += f' | GPU RAM: {self._no_gpu()}'
        else:
            u = self.gpu_ram_unit
            line += (f' | GPU RAM: consumed {f(self.gpu_ram_consumed, u)}, peaked {f(self.gpu_ram_peaked, u)} '
                     f'above {self.peaked_over}, used {f(self.gpu_ram_used, u)}')
        return line


def _ram(usage):
    return usage.max_ram.combined.total_rss


def _gpu_ram(usage):
    return usage.max_gpu_ram.combined if usage.gpu_utilization.system_gpu_count > 0 else None


class _CellTracker:
    """The per-cell tracker of one IPython shell."""

    def __init__(self, shell):
        self.shell = shell
        self.enabled = True
        self.settings = {'ram_unit': 'megabytes', 'gpu_ram_unit': 'megabytes', 'sleep_time': 0.1}
        self.tracemalloc = False
        self.kernel_peak = True
        self.options = {'peaked': 'start', 'gc_collect': True, 'empty_cache': True, 'compact': True,
                        'gpu_poll': 0.001}
        self._heap = None
        self._gpu_why = None  # None: not probed yet; '': a GPU is there; else why there is none
        self._said_why = False
        self._started_tracemalloc = False
        self._tracker = None
        self._before = None
        self._hwm_reset = False
        self._magic_ran = False
        self.last = None

    def _new_tracker(self, sleep_time):
        return Tracker(sleep_time=sleep_time, ram_unit=self.settings['ram_unit'],
                       gpu_ram_unit=self.settings['gpu_ram_unit'], time_unit='seconds', disable_logs=True)

    def pre_run_cell(self, info=None):
        self._magic_ran = False
        if not self.enabled or self._tracker is not None:
            return
        self._settle()
        if self.tracemalloc:
            self._heap = HeapPeak()
            self._heap.begin()
        self._hwm_reset = self.kernel_peak and _reset_high_water_mark()
        tracker = self._new_tracker(self._cell_sleep_time())
        tracker.start()
        # The first sample is taken by start(): the level before the cell.
        self._before = tracker._usage()
        self._tracker = tracker

    def post_run_cell(self, result=None):
        tracker, self._tracker = self._tracker, None
        if tracker is None:
            return
        tracker.stop()
        magic_ran, self._magic_ran = self._magic_ran, False
        if not self.enabled or magic_ran:  # a cell that configures the line is not reported
            return
        heap_peak = self._heap.peak_bytes() if self.tracemalloc and self._heap is not None else None
        if heap_peak is not None:
            heap_peak /= ram_divisor(self.settings['ram_unit'])
        self._settle()
        # The level after the cell: one sample, from a tracker that samples once
        # at start and once at stop.
        probe = self._new_tracker(3600.0)
        probe.start()
        after = probe._usage()
        probe.stop()
        usage, before = tracker.resource_usage, self._before
        peak = max(_ram(usage), _ram(after))
        if self._hwm_reset and usage.peak_ram is not None and usage.peak_ram.main is not None:
            # The kernel process's own peak since the reset: combined can only be larger.
            peak = max(peak, usage.peak_ram.main)
        gpu_before, gpu_after, gpu_max = _gpu_ram(before), _gpu_ram(after), _gpu_ram(usage)
        # ipygpulogger's peak is above the level at the end of the cell.
        base, gpu_base = (after, gpu_after) if self.options['peaked'] == 'end' else (before, gpu_before)
        self.last = CellUsage(
            execution_count=getattr(result, 'execution_count', None),
            wall_time=usage.compute_time.time,
            ram_unit=usage.max_ram.unit,
            ram_consumed=_ram(after) - _ram(before),
            ram_peaked=peak - _ram(base),
            ram_used=_ram(after),
            gpu_ram_unit=usage.max_gpu_ram.unit,
            gpu_ram_consumed=None if gpu_after is None else gpu_after - gpu_before,
            gpu_ram_peaked=None if gpu_after is None else max(gpu_max, gpu_after) - gpu_base,
            gpu_ram_used=gpu_after,
            python_heap_peak=heap_peak,
            peaked_over=self.options['peaked'],
            gpu_unavailable=self._gpu_why if gpu_after is None and self._gpu_why else None)
        if self.last.gpu_unavailable:
            self.last._say_why, self._said_why = not self._said_why, True
        print(self.last if self.options['compact'] else self.last.table(), flush=True)

    def _settle(self):
        """Before a measurement, as ipygpulogger does: unreachable cycles
        collected, PyTorch's cached GPU blocks given back."""
        if self.options['gc_collect']:
            gc.collect()
        if self.options['empty_cache']:
            torch_memory.empty_cache()

    def _cell_sleep_time(self):
        if self._gpu_why is None:
            self._gpu_why = _probe_gpu()
        poll = self.options['gpu_poll']
        if self._gpu_why == '' and poll is not None:
            return min(self.settings['sleep_time'], poll)
        return self.settings['sleep_time']

    def set_tracemalloc(self, on: bool):
        if on and not tracemalloc.is_tracing():
            tracemalloc.start()
            self._started_tracemalloc = True
        elif not on and self._started_tracemalloc:
            tracemalloc.stop()
            self._started_tracemalloc = False
        self.tracemalloc = on

    def magic(self, line: str):
        from IPython.core.error import UsageError
        self._magic_ran = True
        words = line.split()
        if not words:
            print(f'gpu-tracker: {"on" if self.enabled else "off"} '
                  + ' '.join(f'{k}={v}' for k, v in self.settings.items())
                  + f' tracemalloc={_on_off(self.tracemalloc)} kernel_peak={_on_off(self.kernel_peak)} '
                  + ' '.join(f'{k}={_show(v)}' for k, v in self.options.items()))
            return
        changes = {}
        for word in words:
            if word in ('on', 'off'):
                changes['enabled'] = word == 'on'
                continue
            key, sep, value = word.partition('=')
            if not sep or key not in _SETTINGS:
                raise UsageError(f"gpu_tracker: unknown argument '{word}': use on, off or KEY=VALUE with KEY one "
                                 f"of {', '.join(_SETTINGS)}")
            changes[key] = _SETTINGS[key](key, value, UsageError)
        # Applied only once every word is valid.
        self.enabled = changes.pop('enabled', self.enabled)
        if 'tracemalloc' in changes:
            self.set_tracemalloc(changes.pop('tracemalloc'))
        self.kernel_peak = changes.pop('kernel_peak', self.kernel_peak)
        for key in self.options:
            self.options[key] = changes.pop(key, self.options[key])
        self.settings.update(changes)


def _on_off(flag):
    return 'on' if flag else 'off'


def _show(value):
    return _on_off(value) if isinstance(value, bool) or value is None else str(value)


def _unit_setting(key, value, error):
    if value not in _RAM_UNITS:
        raise error(f"gpu_tracker: invalid {key} '{value}': valid units are {', '.join(_RAM_UNITS)}")
    return value


def _seconds_setting(key, value, error):
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0.001:
        raise error(f"gpu_tracker: invalid {key} '{value}': must be at least 0.001 seconds")
    return seconds


def _flag_setting(key, value, error):
    if value not in ('on', 'off'):
        raise error(f"gpu_tracker: invalid {key} '{value}': use on or off")
    return value == 'on'


def _peaked_setting(key, value, error):
    if value not in ('start', 'end'):
        raise error(f"gpu_tracker: invalid {key} '{value}': use start (the peak above the level at the start of "
                    "the cell) or end (above the level at its end, as ipygpulogger)")
    return value


def _poll_setting(key, value, error):
    return None if value == 'off' else _seconds_setting(key, value, error)


_SETTINGS = {'ram_unit': _unit_setting, 'gpu_ram_unit': _unit_setting, 'sleep_time': _seconds_setting,
             'tracemalloc': _flag_setting, 'kernel_peak': _flag_setting, 'peaked': _peaked_setting,
             'gc_collect': _flag_setting, 'empty_cache': _flag_setting, 'compact': _flag_setting,
             'gpu_poll': _poll_setting}


class _Capture(logging.Filter):
    """Keeps the library's warnings instead of letting them through."""

    def __init__(self):
        super().__init__()
        self.messages = []

    def filter(self, record):
        self.messages.append(record.getMessage())
        return False


def _probe_gpu() -> str:
    """'' where a GPU is tracked; otherwise why not, in a few words (from
    the warnings the library gives once, which the per-cell trackers keep
    quiet): "NVML: Driver Not Loaded"."""
    capture = _Capture()
    library_log = logging.getLogger('gpu_tracker.tracker')
    library_log.addFilter(capture)
    try:
        probe = Tracker(sleep_time=3600.0)
        probe.start()
        probe.stop()
    finally:
        library_log.removeFilter(capture)
    if probe.resource_usage.gpu_utilization.system_gpu_count > 0:
        return ''
    for message in capture.messages:
        # A vendor library's failure, as every backend words it (src/lib/gpu/backend.h):
        # "<function>: <text>, <library> error|status <code>".
        said = re.match(r'\w+: (.*?), (\w[\w ]*?) (?:error|status) -?\d+$', message)
        if said:
            return f'{said.group(2)}: {said.group(1)}'
    for message in capture.messages:
        if message.startswith('Neither the '):
            return f'no {" or ".join(name.upper() for name in _lib.gpu_brands())} GPU library installed'
    return capture.messages[0].split('. ')[0].rstrip('.') if capture.messages else ''


def _reset_high_water_mark():
    """Resets this process's peak resident set size (VmHWM) to its current
    size; False where the kernel does not allow it."""
    try:
        with open('/proc/self/clear_refs', 'w') as f:
            f.write('5')
        return True
    except OSError:
        return False


_cell_tracker = None


def last_cell_usage() -> CellUsage | None:
    """The figures of the last cell tracked by the IPython extension."""
    return _cell_tracker.last if _cell_tracker is not None else None


def load_ipython_extension(ipython):
    global _cell_tracker
    if _cell_tracker is not None:
        return
    _cell_tracker = _CellTracker(ipython)
    ipython.events.register('pre_run_cell', _cell_tracker.pre_run_cell)
    ipython.events.register('post_run_cell', _cell_tracker.post_run_cell)
    ipython.register_magic_function(_cell_tracker.magic, 'line', 'gpu_tracker')


def unload_ipython_extension(ipython):
    global _cell_tracker
    if _cell_tracker is None:
        return
    ipython.events.unregister('pre_run_cell', _cell_tracker.pre_run_cell)
    ipython.events.unregister('post_run_cell', _cell_tracker.post_run_cell)
    if _cell_tracker._tracker is not None:
        _cell_tracker._tracker.stop()
    _cell_tracker.set_tracemalloc(False)
    _cell_tracker = None
