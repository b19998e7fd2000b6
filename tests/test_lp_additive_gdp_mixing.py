"""The wider-Gaussian repair of GDP designs (``optmech.lp.additive.gdp_reference``).

Independent truth: the grid Gaussian's cell masses from ``scipy.stats.norm``; the cheapest
mixture by brute force over the factors with stated certification thresholds; and for a whole
design the GDP curve ``δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)`` (Dong, Roth & Su 2022,
Corollary 2.13) against the returned noise's hockey-stick divergences summed here over its
cells, and its cost against the grid Gaussian's, summed here from the normal cdf.
"""

from __future__ import annotations

import math
import warnings
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from _reference import gdp_curve, hockey_stick_curve
from scipy import stats

import optmech
from optmech.cli.design import compute
from optmech.exceptions import InaccurateSolutionWarning
from optmech.lp.additive import gdp_reference
from optmech.lp.additive.beyond_cuts import Cuts
from optmech.lp.additive.lp import build_additive_lp
from optmech.lp.additive.spec import AdditiveSpec
from optmech.lp.design import design_noise


def test_grid_gaussian_has_the_normal_cell_masses() -> None:
    """On 4 cells per Δ and 3 periods, the masses of the grid Gaussian N(0, 0.8²) are the normal
    cdf's differences over the cells (normalised with the grid's tails beyond, mass < 1e-4)."""
    spec = AdditiveSpec(optmech.GaussianDP(1.0), sensitivity=1.0, cost="abs", resolution=4)
    spec = spec.replace(periods=3)
    lp = build_additive_lp(spec, cuts=Cuts((0.0, 1.0)))
    kwargs = gdp_reference.grid_gaussian(lp, 0.8)
    masses = np.asarray(kwargs["densities"]) * 0.25
    edges = np.arange(-3.0, 3.0 + 0.125, 0.25)
    expected = np.diff(stats.norm.cdf(edges, scale=0.8))
    np.testing.assert_allclose(masses / masses.sum(), expected / expected.sum(), rtol=1e-9)


def test_cheapest_wider_mixture_is_the_brute_force_least_cost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With references that certify from a stated weight on (per factor f) and cost 0.8/f, the
    choice is the factor of least (1 − λ_f)·0.78 + λ_f·0.8/f, its weight within the search's
    resolution above λ_f; a factor that needs more than half is never chosen."""
    need = {0.95: 0.3, 0.9: 0.1, 0.85: 0.06, 0.8: 0.05, 0.7: 0.9, 0.6: 0.045}
    monkeypatch.setattr(
        gdp_reference, "grid_gaussian", lambda lp, sigma: {"f": round(1.0 / sigma, 6)}
    )

    def mix(a: dict[str, Any], b: dict[str, Any], lam: float) -> dict[str, Any]:
        return {"f": b["f"], "lam": lam}

    def value(kw: dict[str, Any]) -> float:
        return 0.78 if "noise" in kw else 0.8 / kw["f"]

    got = gdp_reference.cheapest_wider_mixture(
        SimpleNamespace(grid=SimpleNamespace(sensitivity=1.0)),
        1.0,
        {"noise": True},
        certifies=lambda kw: kw["lam"] >= need[kw["f"]],
        value=value,
        mix=mix,
    )
    assert got is not None
    costs = {f: (1 - lam) * 0.78 + lam * 0.8 / f for f, lam in need.items() if lam <= 0.5}
    best = min(costs, key=costs.__getitem__)
    assert got.factor == best
    assert need[best] <= got.weight <= need[best] * 1.1
    assert got.kwargs == {"f": best, "lam": got.weight}
    assert got.cost == pytest.approx((1 - got.weight) * 0.78 + got.weight * 0.8 / best)


def test_cheapest_wider_mixture_none_when_nothing_certifies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(gdp_reference, "grid_gaussian", lambda lp, sigma: {})
    lp = SimpleNamespace(grid=SimpleNamespace(sensitivity=1.0))
    got = gdp_reference.cheapest_wider_mixture(
        lp, 1.0, {}, certifies=lambda kw: False, value=lambda kw: 1.0, mix=lambda a, b, t: {}
    )
    assert got is None


def test_gdp_design_beats_the_grid_gaussian_and_is_private() -> None:
    """Four cells per Δ: the design is μ-GDP at shifts Δ/8 .. Δ (direct sums over half-cells)
    and costs less than the grid Gaussian (cell masses of N(0, 1/μ²), midpoint costs), which
    mixing with N(0, 1/μ²) itself could not (it has no room below δ_μ)."""
    mu = 1.0
    with warnings.catch_warnings():  # the interval's width is not what is tested here
        warnings.simplefilter("ignore", InaccurateSolutionWarning)
        noise = design_noise(optmech.GaussianDP(mu), sensitivity=1, cost="abs", resolution=4)
    lo = np.arange(0.0, 40.0, 0.25)
    mass = stats.norm.cdf(lo + 0.25, scale=1 / mu) - stats.norm.cdf(lo, scale=1 / mu)
    grid_gaussian = 2.0 * float(np.sum(mass * (lo + 0.125)))
    assert grid_gaussian > math.sqrt(2 / math.pi) / mu  # the coarse grid's own penalty
    assert noise.value < grid_gaussian * (1 - 1e-3)
    assert noise.lower_bound <= noise.value
    assert noise.certified_mu is not None and noise.certified_mu <= mu
    edges = np.arange(-30.0, 30.0 + 0.125, 0.25)
    masses = np.diff(np.asarray(noise.cdf(edges), dtype=float))
    sub = np.repeat(masses / 2.0, 2)
    eps = np.linspace(0.0, 12.0, 2000)
    bound = np.maximum(gdp_curve(mu, eps), 0.0)
    for shift in range(1, 9):
        assert np.all(hockey_stick_curve(sub, shift, eps) <= bound * (1 + 1e-9) + 1e-15), shift


def test_worse_than_gaussian_is_in_the_dict() -> None:
    """Two cells per Δ: the statement whether the design costs more than N(0, 1/μ²) (σ√(2/π)
    in closed form) is in ``to_dict()``, and the CLI's JSON; other guarantees carry None."""
    noise = design_noise(optmech.GaussianDP(1.0), sensitivity=1, cost="abs", resolution=2)
    out = noise.to_dict()
    assert out["worse_than_gaussian"] is (noise.value > math.sqrt(2 / math.pi))
    assert out["worse_than_gaussian"]  # cells of Δ/2: 2 % above the Gaussian
    # The grid Gaussian returned unmixed: the record states no repair weight.
    assert noise.record.source == "reference" and noise.provenance.repair.weight == 0.0
    printed, _, _ = compute("gdp=1", resolution=2)
    assert printed["worse_than_gaussian"] is True
    other = design_noise(
        optmech.PrivacyProfile([0.5, 1.0], [1e-2, 1e-3]), sensitivity=1, cost="abs", resolution=2
    )
    assert other.to_dict()["worse_than_gaussian"] is None
