"""Deprecated: this module moved to
[`optmech.lp.additive.repair`][optmech.lp.additive.repair]; import from there.

The names it held still resolve here for one release, each with a `DeprecationWarning`.
"""

from optmech._deprecation import moved_module
from optmech.lp.additive import repair as _moved

__getattr__ = moved_module("optmech.lp.noise_repair", _moved, _moved.__all__)
