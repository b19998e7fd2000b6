"""Bridges to other differential-privacy libraries (optional extras, imported on first use).

- `optmech.interop.opendp`: any optmech noise or count mechanism as an
  OpenDP ``Measurement`` whose privacy map is the certified guarantee
  (``pip install optmech[opendp]``); `to_opendp` dispatches on the
  object's self-description.
"""

from optmech.interop.opendp import to_opendp

__all__ = ["to_opendp"]
