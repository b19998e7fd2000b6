"""Deprecated: this module moved to
[`optmech.lp.additive.windows`][optmech.lp.additive.windows]; import from there.

The names it held still resolve here for one release, each with a `DeprecationWarning`.
"""

from optmech._deprecation import moved_module
from optmech.lp.additive import windows as _moved

__getattr__ = moved_module("optmech.lp.windows", _moved, _moved.__all__)
