"""Bridges to other differential-privacy libraries (optional extras, imported on first use).

- [`optmech.interop.opendp`][optmech.interop.opendp]: any optmech noise or count mechanism as an
  OpenDP ``Measurement`` whose privacy map is the certified guarantee
  (``pip install optmech[opendp]``).
"""
