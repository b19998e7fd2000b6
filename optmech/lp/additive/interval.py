"""Moved: the certified interval of a row-block LP is now
[`optmech.lp.engine.interval`][optmech.lp.engine.interval], shared by the 1-D and 2-D designers.
Reading a name here warns and returns the same object."""

from __future__ import annotations

from optmech._deprecation import moved_module
from optmech.lp.engine import interval as _moved

__getattr__ = moved_module(
    "optmech.lp.additive.interval", _moved, ("interval_value", "lp_interval", "lp_value")
)
