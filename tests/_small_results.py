"""Small instances of optmech's LP results (milliseconds to a second each), made in one place
for the batteries that run every result: the result interface (``test_lp_results``), the
notebook display (``test_notebook_display``) and the family battery (``_families``).

Each function makes a fresh instance; none of them checks anything (the batteries do), but
for :func:`assert_draws_on_the_axes_given`, the drawing check both display batteries make.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import optmech
from optmech.experiments import noise_2d
from optmech.privacy import ApproxDP, PureDP

#: A uniform prior on five inputs.
PRIOR = np.full(5, 0.2)


def uniform_design() -> Any:
    """ε = 1 noise on a uniform grid of six cells per Δ, three tail periods."""
    return optmech.design_noise(PureDP(1.0), sensitivity=1.0, cost="abs", resolution=6, periods=3)


def approx_design() -> Any:
    """(1, 10⁻³) noise on a uniform grid of six cells per Δ, eight periods."""
    return optmech.design_noise(
        ApproxDP(1.0, 1e-3), sensitivity=1.0, cost="abs", resolution=6, periods=8
    )


def graded_design() -> Any:
    """ε = 15 noise: large enough that the designer grades its grid."""
    return optmech.design_noise(PureDP(15.0), sensitivity=1.0, cost="abs")


def plane_design(norm: str = "linf", resolution: int = 2, periods: int = 2) -> Any:
    """ε = 1 noise on the plane for the ℓ1 cost, sensitivity 1 in the norm ``norm``: the design
    the ℝ² experiment runs, at a small size."""
    return noise_2d._design(1.0, norm, resolution, periods)


def bayesian_user() -> Any:
    """The Bayesian user LP for the absolute loss, uniform prior on five inputs, ε = 0.5."""
    return optmech.bayesian_mechanism(PRIOR, "abs", 0.5)


def common_mechanism() -> Any:
    """One mechanism for two users (different priors and losses), ε = 0.5."""
    return optmech.common_mechanism(
        [PRIOR, np.array([0.6, 0.1, 0.1, 0.1, 0.1])], ["abs", "squared"], 0.5
    )


def geometric_remap() -> Any:
    """The minimax user's remap of the geometric mechanism (n = 4, ε = 0.5)."""
    return optmech.geometric_minimax("abs", 0.5, n=4)


def minimax_remap() -> Any:
    """The LP remap of a truncated geometric mechanism for a minimax user with side
    information {0, 5}."""
    return optmech.minimax_remap(optmech.truncated_geometric(5, 0.5), "abs", [0, 5])


def dependent_noise() -> Any:
    """Query-dependent noise of period 2 on ℤ, Δ = 2, ε = 1."""
    return optmech.dependent_noise_lp(1.0, sensitivity=2, period=2)


def local_mechanism() -> Any:
    """The local-model mechanism on five inputs 0..4, uniform prior, ε = 0.5."""
    return optmech.local_mechanism(PRIOR, "abs", 0.5, inputs=np.arange(5.0))


def assert_draws_on_the_axes_given(result: Any) -> None:
    """``result.plot(ax=ax)`` draws into the Axes ``ax`` it is given and returns it (the figure
    is closed afterwards; the caller chooses the backend)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    try:
        assert result.plot(ax=ax) is ax
        assert ax.has_data() or ax.images
    finally:
        plt.close(fig)


def lattice_design() -> Any:
    """(1, 10⁻³) noise on ℤ, Δ = 2, ten periods."""
    return optmech.design_noise(
        ApproxDP(1.0, 1e-3), sensitivity=2, cost="abs", integer=True, periods=10
    )


def zcdp_design() -> Any:
    """ρ = 0.5 zCDP noise on a coarse grid (a guarantee beyond (ε, δ))."""
    return optmech.design_noise(optmech.ZCDP(0.5), sensitivity=1.0, cost="abs", resolution=4)


def dual_certificate() -> Any:
    """The dual certificate of GRS universal optimality for a uniform prior on {0..10}, |e|,
    ε = 0.5 (default accuracy 1e-9)."""
    from optmech.theorems import grs_certificate

    return grs_certificate(np.full(11, 1 / 11), "abs", 0.5)


def staircase_certificate() -> Any:
    """The dual certificate of the staircase's optimality on a grid of 10 cells per Δ, 3
    periods each side, |e|, ε = 1."""
    from optmech.theorems import staircase_certificate

    return staircase_certificate(1.0, "abs", resolution=10)


def rr_on_bins() -> Any:
    """RR-on-Bins for the squared loss, five labels 0..4, ε = 1."""
    return optmech.rr_on_bins(
        np.array([0.1, 0.2, 0.4, 0.2, 0.1]), "squared", 1.0, inputs=np.arange(5.0)
    )


def extremal() -> Any:
    """The extremal mechanism for the mutual information of a prior on three inputs, ε = 1."""
    from optmech.utilities import MutualInformation

    return optmech.extremal_mechanism(MutualInformation(np.array([0.5, 0.3, 0.2])), 1.0)


def shuffle_guarantee() -> Any:
    """The shuffled guarantee of binary randomized response (ε₀ = 1) over 50 users."""
    e = float(np.exp(1.0))
    return optmech.shuffle_epsilon(np.array([[e, 1.0], [1.0, e]]) / (1 + e), 50, 1e-4)


def shuffle_mechanism() -> Any:
    """The randomizer of three labels whose 2000 shuffled reports are central (1, 10⁻⁶)-DP,
    on two lines of the frontier."""
    return optmech.shuffle_mechanism(
        "uniform", "squared", 1.0, 1e-6, n=2000, inputs=[0.0, 1.0, 2.0], thetas=(0.0, 1.0)
    )
