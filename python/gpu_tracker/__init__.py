# SPDX-License-Identifier: MIT
"""gpu-tracker for Python: the Python gpu-tracker package's API over the C
library libgputracker, which does all the measuring, the files and the
analysis.

    import gpu_tracker as gput
    with gput.Tracker(sleep_time=0.1) as tracker:
        work()
    print(tracker)

In IPython or Jupyter, ``%load_ext gpu_tracker`` prints a line of usage after
every cell (see gpu_tracker.notebook).
"""
from .tracker import (Tracker, ResourceUsage, MaxRAM, MaxGPURAM, RSSValues, CPUUtilization, GPUUtilization,
                      ProcessingUnitPercentages, Percentages, ComputeTime, PeakRAM)
from .sub_tracker import (SubTracker, sub_track, SubTrackingAnalyzer, SubTrackingResults, CodeBlockResults,
                          TrackingComparison, ComparisonResults)
from .notebook import load_ipython_extension, unload_ipython_extension, last_cell_usage, CellUsage
from .energy import Energy, EnergyGroup, EnergyDomain
from .run_extras import PythonHeap, IncrementalPeaks
from .torch_memory import TorchCUDAMemory
from .model_complexity import model_complexity, ModelComplexity
from ._version import __version__

__all__ = ['Tracker', 'ResourceUsage', 'MaxRAM', 'MaxGPURAM', 'RSSValues', 'CPUUtilization', 'GPUUtilization',
           'ProcessingUnitPercentages', 'Percentages', 'ComputeTime', 'PeakRAM', 'SubTracker', 'sub_track',
           'SubTrackingAnalyzer', 'SubTrackingResults', 'CodeBlockResults', 'TrackingComparison', 'ComparisonResults',
           'load_ipython_extension', 'unload_ipython_extension', 'last_cell_usage', 'CellUsage']
__all__ += ['Energy', 'EnergyGroup', 'EnergyDomain', 'PythonHeap', 'IncrementalPeaks', 'TorchCUDAMemory',
            'model_complexity', 'ModelComplexity']
