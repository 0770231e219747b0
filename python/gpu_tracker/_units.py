# SPDX-License-Identifier: MIT
"""The RAM units the tracker, its run extras and the notebook magics share,
kept below all three so that none imports another for them."""

RAM_UNITS = ('bytes', 'kilobytes', 'megabytes', 'gigabytes', 'terabytes')


def ram_divisor(unit: str) -> int:
    """Bytes in one of unit (a name from RAM_UNITS)."""
    return 10 ** (3 * RAM_UNITS.index(unit))
