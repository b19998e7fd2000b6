"""Deprecated: this module moved to
[`optmech.lp.additive.designed`][optmech.lp.additive.designed]; import from there.

The names it held still resolve here for one release, each with a `DeprecationWarning`.
"""

from optmech._deprecation import moved_module
from optmech.lp.additive import designed as _moved

__getattr__ = moved_module("optmech.lp.designed", _moved, _moved.__all__)
