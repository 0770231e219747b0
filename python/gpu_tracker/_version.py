# SPDX-License-Identifier: MIT
"""The version of this package, which is the version of the C library it is
built for (GT_VERSION_MAJOR/MINOR/PATCH in include/gpu_tracker.h; a test
keeps the two equal).  The library's gt_version() must return it."""
__version__ = '0.1.0'
