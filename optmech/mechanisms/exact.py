"""Deprecated: this module moved to
[`optmech.mechanisms.exact_sampling`][optmech.mechanisms.exact_sampling]; import from there.

The names it held still resolve here for one release, each with a `DeprecationWarning`.
"""

from optmech._deprecation import moved_module
from optmech.mechanisms import exact_sampling as _moved

__getattr__ = moved_module("optmech.mechanisms.exact", _moved, _moved.__all__)
