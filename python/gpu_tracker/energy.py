# SPDX-License-Identifier: MIT
"""The Energy section of the report as data classes:
``tracker.resource_usage.energy``.  The C library measures it (RAPL domains
for the CPU, the GPUs' energy counters or integrated power draw); this module
only gives its JSON a typed shape.  Energy is in Energy.unit (Tracker's
energy_unit), power always in watts; None marks a figure that could not be
read, never a zero."""
from __future__ import annotations

import dataclasses as dclass

ENERGY_UNITS = ('joules', 'kilojoules', 'watt-hours', 'kilowatt-hours')


@dclass.dataclass
class EnergyDomain:
    """One RAPL domain ("package-0", "package-0:dram", "psys") or one GPU."""
    source: str | None
    energy: float | None
    mean_power_watts: float | None
    max_power_watts: float | None
    attributed_energy_estimate: float | None
    # DRAM domains only: the tracked processes' share of used RAM instead of
    # CPU time (EnergyGroup.dram_attribution_method); None elsewhere.
    attributed_energy_memory_share_estimate: float | None = None


@dclass.dataclass
class EnergyGroup:
    """The CPU's domains or the GPUs.  unavailable says why some or all of
    them could not be read (None when every one was)."""
    unavailable: str | None
    attribution_method: str | None
    domains: dict[str, EnergyDomain]
    dram_attribution_method: str | None = None


@dclass.dataclass
class Energy:
    unit: str
    cpu: EnergyGroup | None
    gpu: EnergyGroup | None

    @classmethod
    def from_json(cls, d: dict | None) -> Energy | None:
        """The report's "energy" object, or None where energy was not measured."""
        if d is None:
            return None
        return cls(d['unit'], _group(d.get('cpu'), 'domains'), _group(d.get('gpu'), 'devices'))


def _group(d, key):
    if d is None:
        return None
    domains = {name: EnergyDomain(**{f.name: v.get(f.name) for f in dclass.fields(EnergyDomain)})
               for name, v in (d.get(key) or {}).items()}
    return EnergyGroup(d.get('unavailable'), d.get('attribution_method'), domains, d.get('dram_attribution_method'))
