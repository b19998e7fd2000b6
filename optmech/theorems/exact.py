"""Deprecated: this module moved to
[`optmech.theorems.exact_catalogue`][optmech.theorems.exact_catalogue]; import from there.

The names it held still resolve here for one release, each with a `DeprecationWarning`.
"""

from optmech._deprecation import moved_module
from optmech.theorems import exact_catalogue as _moved

__getattr__ = moved_module("optmech.theorems.exact", _moved, _moved.__all__)
