"""Independent certification: the privacy a mechanism actually achieves, from its numbers alone.

Nothing here trusts the LP that produced a mechanism. Achieved ε and δ are recomputed with
numpy from the densities, pmfs or matrices, rounded towards more privacy loss (an entry of
1e-20 beside an exact zero is an infinite ε).

- [`optmech.certify.noise`][optmech.certify.noise]: additive noise (piecewise-constant densities
  or pmfs on ℤ with geometric tails): achieved ε over all shifts ``|d| ≤ Δ`` and achieved δ
  (hockey-stick).
- [`optmech.certify.noise2d`][optmech.certify.noise2d]: additive noise in ℝ² on square cells with
  tail shapes: achieved ε over all shifts in an ℓ1, ℓ2 or ℓ∞ ball.
- [`optmech.certify.matrix`][optmech.certify.matrix]: mechanism matrices over a neighbour graph.
- [`optmech.certify.profiles`][optmech.certify.profiles]: noise under the guarantees beyond
  (ε, δ): privacy profiles δ(ε), Rényi divergences, and ρ (zCDP) and μ (GDP) certified over the
  whole continuum of orders / ε.
- [`optmech.certify.exact_arithmetic`][optmech.certify.exact_arithmetic]: the same certificates
  in exact rational arithmetic with interval enclosures of ``log`` and ``exp`` (``exact=True``
  of every certifier; needs python-flint and is imported only on first use).
"""

from optmech.certify.matrix import (
    MatrixCertificate,
    certified_epsilon,
    certify_mechanism,
    check_dp,
    log_ratio_bound,
)
from optmech.certify.noise import (
    DeltaReport,
    EpsilonReport,
    NoiseCertificate,
    cells_within_reach,
    certify_noise,
    check_noise,
    noise_delta,
    noise_epsilon,
)
from optmech.certify.noise2d import noise2d_epsilon
from optmech.certify.profiles import (
    certified_mu,
    certified_rho,
    check_guarantee,
    privacy_profile,
    renyi_divergence,
)

__all__ = [
    "DeltaReport",
    "EpsilonReport",
    "MatrixCertificate",
    "NoiseCertificate",
    "cells_within_reach",
    "certified_epsilon",
    "certified_mu",
    "certified_rho",
    "certify_mechanism",
    "certify_noise",
    "check_dp",
    "check_guarantee",
    "check_noise",
    "log_ratio_bound",
    "noise2d_epsilon",
    "noise_delta",
    "noise_epsilon",
    "privacy_profile",
    "renyi_divergence",
]
