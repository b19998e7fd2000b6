"""When a certified ε is accepted as meeting a requested one: the certificate's own rounding.

The certifiers (`optmech.certify.noise` and its kin) are pessimistic:
a ratio at exactly ``e^ε`` is certified a few ulps above ε. A designed ε-DP noise whose tails
sit at exactly ``e^ε`` (the 1-D tails, the 2-D band rows) is therefore certified at ε plus that
margin, and is accepted up to it — never beyond.
"""

from __future__ import annotations

import math

from optmech._floats import U as _U
from optmech.exceptions import PrivacyViolationError

__all__ = ["PRIVACY_ATOL", "PRIVACY_RTOL", "not_private", "within_privacy"]

#: A designed ε-DP noise is certified to ε(1 + PRIVACY_RTOL) + PRIVACY_ATOL: its window is
#: strictly inside ε by construction, its tails exactly at ε, and the certificate is
#: pessimistic by a few ulps. (ε, δ) designs are certified to δ itself.
PRIVACY_RTOL = 1e-9
#: The absolute part: the largest margin `optmech.certify.noise` adds to a ratio of normal
#: masses (ten ulps of the largest ``|log p| ≤ 745``, twenty unit roundoffs), plus one ulp of
#: rounding up, so a ratio at exactly e^ε is certified within it. It matters only at tiny ε
#: (below 1e-3 the relative part alone is smaller than this rounding).
PRIVACY_ATOL = 10.0 * math.ulp(745.0) + 21.0 * _U


def within_privacy(certified: float, epsilon: float) -> bool:
    """Whether a certified ε meets a requested ε up to the certificate's own rounding
    (`PRIVACY_RTOL`, `PRIVACY_ATOL`).

    Examples
    --------
    >>> within_privacy(1.0 + 1e-12, 1.0), within_privacy(1.0 + 1e-6, 1.0)
    (True, False)
    """
    return certified <= epsilon * (1.0 + PRIVACY_RTOL) + PRIVACY_ATOL


def not_private(privacy: object, certified: str) -> PrivacyViolationError:
    """The error of a solver's point that is not ``privacy`` when no repair is allowed:
    ``certified`` says what its certificate found.

    Examples
    --------
    >>> str(not_private("1-DP", "ε = 1.5")).split(";")[0]
    "the solver's point is not 1-DP: certified ε = 1.5"
    """
    return PrivacyViolationError(
        f"the solver's point is not {privacy}: certified {certified}; pass "
        "allow_repair=True, tighten the solver tolerances or try another solver."
    )
