# SPDX-License-Identifier: MIT
"""The figures a Tracker adds in Python to the C library's report: the
Python heap's peak, the peaks above the level at the start (incremental),
PyTorch's allocator view of GPU memory, the model's complexity and the
energy as data classes.  Each is opt-in or present only where it has
something to say, and each lands in three places: an attribute of
ResourceUsage, a key of to_json() and a section appended to the text."""
from __future__ import annotations

import dataclasses as dclass
import logging

from . import torch_memory
from ._units import ram_divisor
from .energy import Energy
from .model_complexity import model_complexity
from .python_heap import HeapPeak


@dclass.dataclass
class PythonHeap:
    """The peak of what Python itself allocated (tracemalloc) above its level
    at start(), in the RAM unit."""
    unit: str
    peak: float | None


@dclass.dataclass
class IncrementalPeaks:
    """Peak minus the level at start() of the combined (process and
    descendants) total RSS and GPU RAM: what the tracked code added at its
    worst, as ResourceTracker reports it.  gpu_ram is None without a GPU."""
    ram_unit: str
    ram: float
    gpu_ram_unit: str
    gpu_ram: float | None


def _ram(usage):
    return usage.max_ram.combined.total_rss


def _gpu_ram(usage):
    return usage.max_gpu_ram.combined if usage.gpu_utilization.system_gpu_count > 0 else None


class RunExtras:
    """What one Tracker measures in Python, from start() to stop()."""

    def __init__(self, python_heap=False, logger=None, model=None, input_size=None):
        if logger is not None and not isinstance(logger, (logging.Logger, logging.LoggerAdapter)):
            raise TypeError(f'logger must be a logging.Logger, not {type(logger).__name__}')
        if (model is None) != (input_size is None):
            raise ValueError('model and input_size go together: give both to record the model complexity, '
                             'or neither')
        self.logger = logger
        self.heap = HeapPeak() if python_heap else None
        # Counted before tracking starts, so its forward pass is not measured.
        self.complexity = model_complexity(model, input_size) if model is not None else None
        self._first = None
        self._torch_start = {}

    def begin(self, first):
        """first: the usage right after start(), whose only sample is the level at start."""
        self._first = first
        if self.heap is not None:
            self.heap.begin()
        self._torch_start = torch_memory.allocated_now()

    def finish(self, usage):
        """Adds the figures to usage (a ResourceUsage) and returns it."""
        sections = []
        ram_unit, gpu_unit = usage.max_ram.unit, usage.max_gpu_ram.unit
        if self.heap is not None:
            peak = self.heap.end()
            usage.python_heap = PythonHeap(ram_unit, None if peak is None else peak / ram_divisor(ram_unit))
            sections.append(('Python heap (tracemalloc)', 'python_heap', dclass.asdict(usage.python_heap)))
        if self._first is not None:
            gpu_start, gpu_peak = _gpu_ram(self._first), _gpu_ram(usage)
            usage.incremental = IncrementalPeaks(
                ram_unit, _ram(usage) - _ram(self._first), gpu_unit,
                None if gpu_peak is None or gpu_start is None else gpu_peak - gpu_start)
            sections.append(('Incremental peaks (peak minus the level at start)', 'incremental',
                             dclass.asdict(usage.incremental)))
        view = torch_memory.allocator_view(self._torch_start, ram_divisor(gpu_unit), gpu_unit)
        if view is not None:
            usage.torch_cuda_memory = view
            sections.append(('PyTorch CUDA allocator (torch.cuda.max_memory_allocated)', 'torch_cuda_memory',
                             {f'device_{v.device}': {k: x for k, x in dclass.asdict(v).items() if k != 'device'}
                              for v in view}))
        if self.complexity is not None:
            usage.model_complexity = self.complexity
            sections.append(('Model complexity', 'model_complexity', self.complexity.to_json()))
        if usage._json is not None:
            usage.energy = Energy.from_json(usage._json.get('energy'))
            for _, key, value in sections:
                usage._json[key] = value
        if sections:
            text = usage._text
            body = '\n'.join(_text_section(label, value) for label, _, value in sections)
            usage._text = text.rstrip('\n') + '\n' + body + ('\n' if text.endswith('\n') else '')
        if self.logger is not None:
            self.logger.info('%s', usage._text.rstrip('\n'))
        return usage


_LABELS = {'ram': 'RAM', 'ram_unit': 'RAM unit', 'gpu_ram': 'GPU RAM', 'gpu_ram_unit': 'GPU RAM unit',
           'macs': 'MACs', 'macs_by_layer_type': 'MACs by layer type'}


def _label(key):
    return _LABELS.get(key) or key[0].upper() + key[1:].replace('_', ' ')


def _text_section(label, value, indent=''):
    """A section laid out as the C library writes its own: 'Label:' then
    'Key: value' lines three spaces in, floats to 3 decimals."""
    lines = [f'{indent}{label}:']
    for key, x in value.items():
        if x is None or key.endswith('_unit') and value.get(key[:-5]) is None:
            continue  # the text leaves out what was not measured; JSON says null
        if isinstance(x, dict):
            lines.append(_text_section(_label(key), x, indent + '   '))
            continue
        if isinstance(x, float):
            x = round(x, 3)
        elif isinstance(x, list):
            x = ', '.join(str(i) for i in x) if x else 'none'
        lines.append(f'{indent}   {_label(key)}: {x}')
    return '\n'.join(lines)
