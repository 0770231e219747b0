# SPDX-License-Identifier: MIT
"""PyTorch's own view of GPU memory, read only where the program has already
loaded torch and initialized CUDA: gpu-tracker never imports torch itself
(importing it takes seconds and hundreds of MB) and never creates a CUDA
context (that alone takes hundreds of MB of GPU memory).

NVML sees what the driver gave the process, the caching allocator's reserve
included; torch.cuda.max_memory_allocated() sees the tensors alone.  Both
are reported, each under its own name."""
from __future__ import annotations

import dataclasses as dclass
import sys


def _cuda():
    """torch.cuda when torch is loaded and CUDA initialized, else None."""
    torch = sys.modules.get('torch')
    cuda = getattr(torch, 'cuda', None)
    if cuda is None:
        return None
    try:
        return cuda if cuda.is_initialized() else None
    except Exception:  # a half-imported or broken torch is not ours to fail on
        return None


@dclass.dataclass
class TorchCUDAMemory:
    """One device as the PyTorch caching allocator counts it.  max_allocated
    is torch.cuda.max_memory_allocated(): the peak since the process began
    or since the program last called torch.cuda.reset_peak_memory_stats(),
    which gpu-tracker leaves to the program.  incremental_peak is
    max_allocated minus allocated_at_start."""
    device: int
    unit: str
    max_allocated: float
    allocated_at_start: float
    allocated_at_stop: float
    incremental_peak: float


def allocated_now() -> dict[int, int]:
    """Bytes allocated per device now; {} without torch or CUDA."""
    cuda = _cuda()
    if cuda is None:
        return {}
    try:
        return {i: int(cuda.memory_allocated(i)) for i in range(cuda.device_count())}
    except Exception:  # an odd torch costs its own figures, never the run's report
        return {}


def allocator_view(at_start: dict[int, int], divisor: float, unit: str) -> list[TorchCUDAMemory] | None:
    """Every device's figures at the end of a run that began with at_start
    (from allocated_now()); None without torch or CUDA."""
    cuda = _cuda()
    if cuda is None:
        return None
    view = []
    try:
        for i in range(cuda.device_count()):
            peak, start = int(cuda.max_memory_allocated(i)), at_start.get(i, 0)
            view.append(TorchCUDAMemory(i, unit, peak / divisor, start / divisor,
                                        int(cuda.memory_allocated(i)) / divisor, (peak - start) / divisor))
    except Exception:
        return None
    return view


def empty_cache() -> bool:
    """Gives the allocator's cached, unused blocks back to the driver, so that
    NVML's figure is what tensors hold; False where torch CUDA is not in use."""
    cuda = _cuda()
    if cuda is None:
        return False
    cuda.empty_cache()
    return True
