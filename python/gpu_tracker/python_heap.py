# SPDX-License-Identifier: MIT
"""The Python heap's peak above its level at a start point, from tracemalloc:
what Python itself allocated (lists, bytes, objects), which the resident-set
figures cannot tell apart from memory that libraries such as NumPy or
PyTorch allocate on their own.  Shared by Tracker(python_heap=True) and the
IPython extension's tracemalloc=on.

tracemalloc keeps one peak per interpreter: starting a measurement resets
it, so a measurement nested in another (a Tracker inside a tracked cell)
shortens the outer one's window to after the inner start."""
from __future__ import annotations

import tracemalloc


class HeapPeak:
    """One measurement: begin() marks the start, peak_bytes() reads the peak
    above it so far, end() stops tracemalloc if begin() started it."""

    def __init__(self):
        self._started_tracing = False
        self._level = 0

    def begin(self):
        if not tracemalloc.is_tracing():
            tracemalloc.start()
            self._started_tracing = True
        tracemalloc.reset_peak()
        self._level = tracemalloc.get_traced_memory()[0]

    def peak_bytes(self) -> int | None:
        """The peak above the start in bytes, or None when tracemalloc was
        stopped (by someone else) since begin()."""
        if not tracemalloc.is_tracing():
            return None
        return max(tracemalloc.get_traced_memory()[1] - self._level, 0)

    def end(self) -> int | None:
        """The final peak above the start (bytes); stops tracemalloc when this
        measurement started it, as tracing slows Python code down."""
        peak = self.peak_bytes()
        if self._started_tracing:
            tracemalloc.stop()
            self._started_tracing = False
        return peak
