"""Independent certification: the privacy a mechanism actually achieves, from its numbers alone.

Nothing here trusts the LP that produced a mechanism. Achieved ε and δ are recomputed with
numpy from the densities, pmfs or matrices, rounded towards more privacy loss (an entry of
1e-20 beside an exact zero is an infinite ε). Nothing here asks which class a noise is either:
each noise describes itself (``privacy_source()``,
[`optmech.mechanisms.description`][optmech.mechanisms.description]) and the certifier reads the
description.

- [`optmech.certify.api`][optmech.certify.api]: the one entry point,
  [`certify`][optmech.certify.api.certify] (any mechanism or noise → its certificate) and
  [`check`][optmech.certify.api.check] (any claim → a bool).
- [`optmech.certify.noise`][optmech.certify.noise]: noise on the line (piecewise-constant
  densities or pmfs on ℤ with geometric tails, and the closed forms): achieved ε over all shifts
  ``|d| ≤ Δ``, achieved δ (hockey-stick), and the number of the noise's own guarantee.
- [`optmech.certify.noise2d`][optmech.certify.noise2d]: additive noise in ℝ² on square cells with
  tail shapes: achieved ε over all shifts in an ℓ1, ℓ2 or ℓ∞ ball.
- [`optmech.certify.matrix`][optmech.certify.matrix]: mechanism matrices over a neighbour graph.
- [`optmech.certify.profiles`][optmech.certify.profiles]: noise under the guarantees beyond
  (ε, δ): privacy profiles δ(ε), Rényi divergences, and ρ (zCDP) and μ (GDP) certified over the
  whole continuum of orders / ε.
- [`optmech.certify.exact_arithmetic`][optmech.certify.exact_arithmetic]: the same certificates
  in exact rational arithmetic with interval enclosures of ``log`` and ``exp`` (``exact=True``
  of every certifier; needs python-flint and is imported only on first use).
- [`optmech.certify.report`][optmech.certify.report]: the base class of every certificate
  (guarantee, certified value, exact or float, reason, ``to_dict``, ``_repr_html_``).

**One API.** Every ``check_*`` returns a bool; with ``debug=True`` it returns True when the
guarantee holds and raises [`PrivacyViolationError`][optmech.exceptions.PrivacyViolationError]
otherwise, the explanation as its message and the certificate as its ``report`` (OpenDP's
``check(d_in, d_out, debug)``). Every ``certify_*`` returns a report; the functions that return
a number (``noise_epsilon``, ``certified_rho``, ...) always return the number (their old
``debug=True`` is deprecated in favour of the ``certify_*`` counterpart).

**One tolerance.** A check passes when ``certified ≤ claim·(1 + rtol)``; the certified number is
already rounded up, so ``rtol`` covers the distance the certifier may leave between it and the
exact value. For numbers computed directly from the floats (pure ε, δ, a profile's δ(ε_j), Rényi
divergences at given orders) that is rounding of a few ulps, and a stored mechanism's own
rounding: ``FLOAT_RTOL = 1e-9``. For numbers found by a search over a continuum (ρ over every
order, μ by bisection) it is the search's stopping accuracy: ``SEARCH_RTOL = 1e-6``. The default
``rtol`` of every check is the one of the number it compares
([`default_rtol`][optmech.certify.report.default_rtol]).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from optmech._lazy import lazy_exports

#: Public names and the module each is imported from on first use: certifying a noise loads
#: neither the matrix certifier (and networkx) nor the 2-D one.
_EXPORTS: dict[str, tuple[str, ...]] = {
    "optmech.certify.api": (
        "certify",
        "check",
    ),
    "optmech.certify.matrix": (
        "MatrixCertificate",
        "certified_epsilon",
        "certify_mechanism",
        "check_dp",
        "log_ratio_bound",
    ),
    "optmech.certify.noise": (
        "DeltaReport",
        "EpsilonReport",
        "NoiseCertificate",
        "cells_within_reach",
        "certify_noise",
        "certify_noise_delta",
        "certify_noise_epsilon",
        "check_noise",
        "noise_delta",
        "noise_epsilon",
    ),
    "optmech.certify.noise2d": (
        "Noise2DReport",
        "certify_noise2d_epsilon",
        "noise2d_epsilon",
    ),
    "optmech.certify.profiles": (
        "Certificate",
        "GuaranteeReport",
        "certified_mu",
        "certified_rho",
        "certify_guarantee",
        "certify_mu",
        "certify_rho",
        "check_guarantee",
        "privacy_profile",
        "renyi_divergence",
    ),
    "optmech.certify.report": (
        "FLOAT_RTOL",
        "SEARCH_RTOL",
        "PrivacyReport",
        "TheoremReport",
        "default_rtol",
    ),
}

__all__ = sorted([*(name for names in _EXPORTS.values() for name in names)])

if not TYPE_CHECKING:  # hidden from type checkers, so that a misspelt name is an error there
    __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)


if TYPE_CHECKING:  # the same names, eagerly, for type checkers and IDEs (``X as X``: re-exported)
    from optmech.certify.api import certify as certify
    from optmech.certify.api import check as check
    from optmech.certify.matrix import MatrixCertificate as MatrixCertificate
    from optmech.certify.matrix import certified_epsilon as certified_epsilon
    from optmech.certify.matrix import certify_mechanism as certify_mechanism
    from optmech.certify.matrix import check_dp as check_dp
    from optmech.certify.matrix import log_ratio_bound as log_ratio_bound
    from optmech.certify.noise import DeltaReport as DeltaReport
    from optmech.certify.noise import EpsilonReport as EpsilonReport
    from optmech.certify.noise import NoiseCertificate as NoiseCertificate
    from optmech.certify.noise import cells_within_reach as cells_within_reach
    from optmech.certify.noise import certify_noise as certify_noise
    from optmech.certify.noise import certify_noise_delta as certify_noise_delta
    from optmech.certify.noise import certify_noise_epsilon as certify_noise_epsilon
    from optmech.certify.noise import check_noise as check_noise
    from optmech.certify.noise import noise_delta as noise_delta
    from optmech.certify.noise import noise_epsilon as noise_epsilon
    from optmech.certify.noise2d import Noise2DReport as Noise2DReport
    from optmech.certify.noise2d import certify_noise2d_epsilon as certify_noise2d_epsilon
    from optmech.certify.noise2d import noise2d_epsilon as noise2d_epsilon
    from optmech.certify.profiles import Certificate as Certificate
    from optmech.certify.profiles import GuaranteeReport as GuaranteeReport
    from optmech.certify.profiles import certified_mu as certified_mu
    from optmech.certify.profiles import certified_rho as certified_rho
    from optmech.certify.profiles import certify_guarantee as certify_guarantee
    from optmech.certify.profiles import certify_mu as certify_mu
    from optmech.certify.profiles import certify_rho as certify_rho
    from optmech.certify.profiles import check_guarantee as check_guarantee
    from optmech.certify.profiles import privacy_profile as privacy_profile
    from optmech.certify.profiles import renyi_divergence as renyi_divergence
    from optmech.certify.report import FLOAT_RTOL as FLOAT_RTOL
    from optmech.certify.report import SEARCH_RTOL as SEARCH_RTOL
    from optmech.certify.report import PrivacyReport as PrivacyReport
    from optmech.certify.report import TheoremReport as TheoremReport
    from optmech.certify.report import default_rtol as default_rtol
