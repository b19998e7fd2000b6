"""Deprecated: this module moved to
[`optmech.certify.exact_arithmetic`][optmech.certify.exact_arithmetic]; import from there.

The names it held still resolve here for one release, each with a `DeprecationWarning`. Like
its new home it needs python-flint, and is imported only when asked for.
"""

from optmech._deprecation import moved_module
from optmech.certify import exact_arithmetic as _moved

__getattr__ = moved_module("optmech.certify.exact", _moved, _moved.__all__)
