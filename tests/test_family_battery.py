"""The conformance battery: every check on every noise family, as scipy's
``test_continuous_basic`` runs every check on every distribution.

The families and what their construction tells about them are in :mod:`_families` (one entry
per instance: closed forms on ℝ and ℤ, hand-built tables, real ``design_noise`` results of every
kind, and noise in ℝ^d). The checks, each one test parametrised over the entries:

* goodness of fit of ``rvs`` against ``cdf`` (Kolmogorov–Smirnov for a density without atoms,
  chi-square on cells otherwise, sparse cells merged; in ℝ^d on the shells or cells on which
  the density is constant, their masses from ``pdf`` and hand-typed unit-ball volumes);
* empirical privacy: histograms of the outputs on two neighbouring inputs never refute the
  guarantee, and (where the sample can) refute half of it;
* bad constructor arguments: one table (:data:`_families.BAD_PARAMETERS`) of refused keywords,
  error types and messages;
* ``pdf`` integrated by quadrature (``pmf`` summed) against ``cdf``; the total mass;
* ``ppf`` and ``isf`` as the quantiles of ``cdf`` and ``sf``;
* tails: ``sf``, ``logsf``, ``logcdf`` and the log density against each other, the mirror
  image of a symmetric law, monotonicity, finiteness beyond the underflow of ``sf``, the
  infinite points, shapes and bad input;
* moments: ``mean``, ``var`` and ``expected_cost`` against sample means;
* repr: the constructor call of a closed form (and it rebuilds the same law), the summary of a
  table or a design;
* ``privacy_source()``: its kind, guarantee, sensitivity and samplers, and its table or edges
  against the density;
* sampler shapes and reproducibility.

Local randomizers (:data:`_families.RANDOMIZERS`, row-stochastic matrices) have no density, cdf,
quantiles, tails or sensitivity; of the battery they take what applies to a matrix: goodness of
fit of each row's draws, empirical privacy between every two inputs, refused arguments, the
summary repr, ``privacy_source()`` and the certificate it leads to, and the sampler.

Statistical tests: a fixed seed each and a false-failure rate of ``ALPHA = 1e-6`` per test
(critical values derived from it; Bonferroni within a test). The closed-form truths of each
family (densities from the papers, exact costs, optimal parameters) are in its own file.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import itertools
import math
import pkgutil
import random
import re
from typing import Any

import numpy as np
import pytest
from _families import (
    BAD_PARAMETERS,
    BAD_RANDOMIZERS,
    ENTRIES,
    NAMESPACE,
    RANDOMIZERS,
    Entry,
    RandomizerEntry,
    entries,
)
from scipy import integrate, stats

import optmech
from optmech.mechanisms.base import NoiseDistribution
from optmech.mechanisms.description import CERTIFIERS, SourceKind
from optmech.mechanisms.vector import VectorNoise
from optmech.privacy import ApproxDP, PureDP

#: False-failure rate of each statistical test.
ALPHA = 1e-6
#: Fewest expected counts in a chi-square cell (sparser cells are merged with their neighbours).
MIN_EXPECTED = 20.0
#: Unit-ball volumes of the ℓ1, ℓ2 and ℓ∞ balls, known independently of the package.
BALL = {
    1: {"l1": 2.0, "l2": 2.0, "linf": 2.0},
    2: {"l1": 2.0, "l2": math.pi, "linf": 4.0},
    3: {"l1": 4.0 / 3.0, "l2": 4.0 * math.pi / 3.0, "linf": 8.0},
}
ORDER = {"l1": 1.0, "l2": 2.0, "linf": math.inf}

LINE = entries(space=("R", "Z"))
CONTINUOUS = entries(space="R")
DISCRETE = entries(space="Z")
VECTOR = entries(space="R^d")


def _ids(items: list[Entry]) -> list[str]:
    return [e.id for e in items]


def every(items: list[Entry]) -> Any:
    return pytest.mark.parametrize("entry", items, ids=_ids(items))


# -- the registry covers every family -------------------------------------------------------------
@functools.cache
def _concrete_families() -> frozenset[type]:
    """Every concrete subclass of the noise bases defined in the package (all modules imported)."""
    for info in pkgutil.walk_packages(optmech.__path__, "optmech."):
        if not info.name.endswith("__main__"):
            importlib.import_module(info.name)
    found: set[type] = set()
    todo = [NoiseDistribution, VectorNoise]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if sub.__module__.startswith("optmech.") and not inspect.isabstract(sub):
                found.add(sub)
    return frozenset(found)


def test_every_concrete_family_has_an_instance_in_the_registry() -> None:
    families = _concrete_families()
    assert {optmech.Laplace, optmech.StaircaseND, optmech.PiecewiseConstantNoise2D} <= families
    covered = {type(e.noise) for e in ENTRIES}
    missing = sorted(f"{c.__module__}.{c.__name__}" for c in families - covered)
    assert not missing, f"add an instance of each to tests/_families.py: {missing}"


def test_every_family_with_a_constructor_has_refused_arguments() -> None:
    """Each class of the registry built by its own constructor (not by a designer) has rows in
    the table of bad parameters."""
    built = {type(e.noise).__name__ for e in ENTRIES if not e.id.startswith("design(")}
    assert built <= {name for name, *_ in BAD_PARAMETERS}


# -- goodness of fit -------------------------------------------------------------------------------
def _merge_sparse(expected: np.ndarray, observed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Merge neighbouring cells, left to right, until each expects at least MIN_EXPECTED."""
    exp_out, obs_out = [], []
    e_acc = o_acc = 0.0
    for e, o in zip(expected.tolist(), observed.tolist(), strict=True):
        e_acc, o_acc = e_acc + e, o_acc + o
        if e_acc >= MIN_EXPECTED:
            exp_out.append(e_acc)
            obs_out.append(o_acc)
            e_acc = o_acc = 0.0
    if exp_out:  # the remainder joins the last cell
        exp_out[-1] += e_acc
        obs_out[-1] += o_acc
    return np.array(exp_out), np.array(obs_out)


def _chi_square(probs: np.ndarray, counts: np.ndarray) -> tuple[float, float]:
    """Statistic and the critical value at ALPHA of counts against cell probabilities."""
    n = counts.sum()
    expected, observed = _merge_sparse(n * probs, counts.astype(float))
    statistic = float(np.sum((observed - expected) ** 2 / expected))
    return statistic, float(stats.chi2.isf(ALPHA, df=expected.size - 1))


def _line_cells(entry: Entry, noise: Any) -> np.ndarray:
    """Right-closed cells ``(e[i−1], e[i]]`` between the 0.001 and 0.999 quantiles: one per
    integer on ℤ; 60 cells and the atom's own cell ``(−5e-324, 0]`` on ℝ."""
    lo, hi = float(noise.ppf(1e-3)), float(noise.ppf(1 - 1e-3))
    if entry.discrete:
        return np.arange(lo - 1.0, hi + 1.0)
    edges = np.linspace(lo, hi, 61)
    return np.unique(np.concatenate([edges, [np.nextafter(0.0, -1.0), 0.0]]))


def _cell_probabilities(noise: Any, edges: np.ndarray) -> np.ndarray:
    """``P(X ≤ e0), P(e0 < X ≤ e1), …, P(X > e_last)`` from cdf."""
    return np.diff(np.concatenate([[0.0], np.asarray(noise.cdf(edges)), [1.0]]))


def _shells(noise: Any) -> tuple[np.ndarray, np.ndarray]:
    """Radii in the noise's norm where its density may step (four sub-shells to each step of
    ``[kΔ, (k + γ)Δ)`` and ``[(k + γ)Δ, (k + 1)Δ)``) and the shells' masses: the density at
    the middle radius along the first axis times the volume between the two radii."""
    delta, gamma, d = noise.sensitivity, noise.gamma, noise.dimension
    k = np.arange(int(60 / noise.epsilon) + 4, dtype=float)
    steps = np.unique(np.concatenate([k, k + gamma]) * delta)
    radii = np.unique(np.concatenate([np.linspace(a, b, 5) for a, b in itertools.pairwise(steps)]))
    mid = np.zeros((radii.size - 1, d))
    mid[:, 0] = 0.5 * (radii[1:] + radii[:-1])
    volume = BALL[d][noise.norm] * np.diff(radii**d)
    return radii, np.asarray(noise.pdf(mid)) * volume


def _grid_cells(noise: Any, reach: int = 300) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cells ``[ih, (i+1)h) × [jh, (j+1)h)`` for ``|i|, |j| ≤ reach`` and their masses (the
    density at the centre times ``h²``: it is constant on each cell)."""
    h = noise.width
    idx = np.arange(-reach, reach)
    ii, jj = np.meshgrid(idx, idx, indexing="ij")
    centres = np.stack([(ii + 0.5) * h, (jj + 0.5) * h], axis=-1)
    return ii, jj, np.asarray(noise.pdf(centres)) * h * h


def _vector_fit(entry: Entry, noise: Any, x: np.ndarray) -> tuple[float, float, float]:
    """Chi-square of vector samples over shells or cells; also the total mass found."""
    if entry.vector_bins == "shells":
        radii, masses = _shells(noise)
        r = np.linalg.norm(x, ord=ORDER[noise.norm], axis=-1)
        counts = np.bincount(np.searchsorted(radii, r, side="right"), minlength=radii.size + 1)
        probs = np.concatenate([[0.0], masses, [max(1.0 - masses.sum(), 0.0)]])
        total = float(masses.sum())
    else:
        ii, jj, masses = _grid_cells(noise)
        near = 3 * noise.cells
        inner = (np.abs(ii + 0.5) < near) & (np.abs(jj + 0.5) < near)
        cell = np.floor(x / noise.width).astype(np.int64)
        i, j = cell[:, 0], cell[:, 1]
        inside = (np.abs(i + 0.5) < near) & (np.abs(j + 0.5) < near)
        index = np.where(inside, (i + near) * 2 * near + (j + near), 4 * near * near)
        counts = np.bincount(index, minlength=4 * near * near + 1)
        flat = np.zeros(4 * near * near + 1)
        order = (ii[inner] + near) * 2 * near + (jj[inner] + near)
        flat[order] = masses[inner]
        total = float(masses.sum())
        flat[-1] = max(total - flat[:-1].sum(), 0.0)
        probs = flat
    statistic, critical = _chi_square(probs / probs.sum(), counts)
    return statistic, critical, total


@every(ENTRIES)
def test_goodness_of_fit(entry: Entry) -> None:
    """``rvs`` against ``cdf``: KS (critical value ``kstwo.isf(ALPHA, n)``) for a density with no
    atom, else chi-square on fixed cells (critical value ``chi2.isf(ALPHA, cells − 1)``)."""
    noise = entry.noise
    n = 100_000
    x = noise.rvs(n, rng=20261123)
    if entry.vector:
        statistic, critical, total = _vector_fit(entry, noise, x)
        assert total == pytest.approx(1.0, abs=1e-9)  # the density integrates to 1
    elif entry.space == "R" and _atom(entry, noise) == 0.0:
        statistic = float(stats.kstest(x, noise.cdf).statistic)
        critical = float(stats.kstwo.isf(ALPHA, n))
    else:
        edges = _line_cells(entry, noise)
        counts = np.bincount(np.searchsorted(edges, x, side="left"), minlength=edges.size + 1)
        statistic, critical = _chi_square(_cell_probabilities(noise, edges), counts)
    assert statistic < critical


def test_goodness_of_fit_detects_a_wrong_law() -> None:
    """The same statistics refute draws of a neighbouring law: the checks can fail."""
    wrong = optmech.DiscreteStaircase(epsilon=1.0, sensitivity=5, r=3).rvs(100_000, rng=1)
    right = optmech.DiscreteStaircase(epsilon=1.0, sensitivity=5, r=2)
    edges = np.arange(-40.0, 41.0)
    counts = np.bincount(np.searchsorted(edges, wrong, side="left"), minlength=edges.size + 1)
    statistic, critical = _chi_square(_cell_probabilities(right, edges), counts)
    assert statistic > critical
    draws = optmech.Staircase(epsilon=1.0, gamma=0.3).rvs(100_000, rng=2)
    other = optmech.Staircase(epsilon=1.0, gamma=0.5)
    assert stats.kstest(draws, other.cdf).statistic > stats.kstwo.isf(ALPHA, draws.size)


# -- empirical privacy -----------------------------------------------------------------------------
def privacy_violations(counts_a: np.ndarray, counts_b: np.ndarray, epsilon: float) -> list[int]:
    """Bins whose counts refute ``P_A(bin) ≤ e^ε P_B(bin)`` or the reverse, at level ALPHA.

    Given ``m = a + b`` outputs in a bin (equally many draws on each input), ``a`` is
    Binomial(m, π), ``π = P_A/(P_A + P_B)``, and ε-DP means ``π ≤ e^ε/(1 + e^ε)``. A bin is
    reported when the one-sided Clopper–Pearson lower bound of π (or of 1 − π) exceeds that;
    Bonferroni over bins and both directions keeps the false-failure rate at ALPHA.
    """
    bound = 1.0 / (1.0 + math.exp(-epsilon))
    level = ALPHA / (2 * counts_a.size)
    m = counts_a + counts_b
    bad = []
    for hits in (counts_a, counts_b):
        shown = hits > 0
        lower = np.zeros(hits.size)
        lower[shown] = stats.beta.ppf(level, hits[shown], m[shown] - hits[shown] + 1)
        bad += np.flatnonzero(lower > bound).tolist()
    return bad


def _hockey_stick_bound(
    ca: np.ndarray, cb: np.ndarray, pa: np.ndarray, pb: np.ndarray, epsilon: float, n: int
) -> list[tuple[float, float, float]]:
    """For each direction: ``(S, se, d)`` with ``S = (a(B) − e^ε b(B))/n`` on the bins
    ``B = {p_A > e^ε p_B}`` (chosen from the law, not the sample), its standard error, and the
    law's own ``d = P_A(B) − e^ε P_B(B)`` (≤ δ for an (ε, δ)-DP law, by post-processing)."""
    w = math.exp(epsilon)
    out = []
    for a, b, p, q in ((ca, cb, pa, pb), (cb, ca, pb, pa)):
        chosen = p > w * q
        fa, fb = a[chosen].sum() / n, b[chosen].sum() / n
        se = math.sqrt((fa * (1 - fa) + w * w * fb * (1 - fb)) / n)
        out.append((fa - w * fb, se, float(p[chosen].sum() - w * q[chosen].sum())))
    return out


def _outputs(noise: Any, entry: Entry, n: int) -> tuple[np.ndarray, np.ndarray, Any]:
    """Outputs on two neighbouring inputs ``t`` and ``t + Δ·e1`` and the shift ``t``."""
    delta = noise.sensitivity
    if entry.vector:
        t = np.array([0.3, 0.1] + [0.0] * (noise.dimension - 2)) * delta
        shift = np.zeros(noise.dimension)
        shift[0] = delta
    else:
        t = 5.0 if entry.discrete else 0.3 * delta
        shift = delta
    return t + noise.rvs(n, rng=11), t + shift + noise.rvs(n, rng=12), t


@every(ENTRIES)
def test_empirical_privacy(entry: Entry) -> None:
    """Histograms of ``t + X`` and ``t + Δ + X`` (300 000 draws each) never refute the guarantee
    (false-failure rate ALPHA), and refute half of it where the sample is large enough.

    Pure ε: the bins' ratios (:func:`privacy_violations`). (ε, δ): ``S = (a(B) − e^ε b(B))/n`` on
    the bins where the law's ``P_A > e^ε P_B``, an unbiased estimate of a divergence ≤ δ; it must
    stay below ``δ + z·se`` (``z`` the normal quantile of ALPHA/2 per direction).
    """
    noise = entry.noise
    n = 300_000
    a, b, t = _outputs(noise, entry, n)
    pilot = noise.rvs(20_000, rng=13)
    delta = noise.sensitivity
    if entry.vector:  # the first two coordinates (post-processing keeps the guarantee)
        lo = np.quantile(pilot[:, :2], 0.001, axis=0) + t[:2]
        hi = np.quantile(pilot[:, :2], 0.999, axis=0) + t[:2] + [delta, 0.0]
        bins = [np.linspace(lo[k], hi[k], 25) for k in range(2)]
        ca = np.histogram2d(a[:, 0], a[:, 1], bins)[0].ravel()
        cb = np.histogram2d(b[:, 0], b[:, 1], bins)[0].ravel()
    else:
        lo, hi = np.quantile(pilot, [0.001, 0.999])
        if entry.discrete:
            edges = np.arange(np.floor(lo) + t, np.ceil(hi) + t + delta + 1) - 0.5
        else:  # 60 bins; the atoms at t and t + Δ fall inside bins, never on an edge
            edges = np.linspace(lo + t - 1e-3 * delta, hi + t + delta, 61)
            edges = edges[~np.isin(edges, [t, t + delta])]
        ca, cb = np.histogram(a, edges)[0], np.histogram(b, edges)[0]
    guarantee = noise.privacy
    if isinstance(guarantee, PureDP):
        eps = guarantee.epsilon
        assert privacy_violations(ca, cb, eps) == []
        if entry.teeth:  # the same data refute a claim of half the ε: the check can fail
            assert privacy_violations(ca, cb, eps / 2) != []
        return
    assert isinstance(guarantee, ApproxDP) and not entry.vector
    eps, dlt = guarantee.epsilon, guarantee.delta
    pa = np.diff(noise.cdf(edges - t))
    pb = np.diff(noise.cdf(edges - t - delta))
    z = float(stats.norm.isf(ALPHA / 2))
    for s, se, divergence in _hockey_stick_bound(ca, cb, pa, pb, eps, n):
        assert s <= dlt + z * se
        if entry.teeth:  # the same data refute (ε, d/2): the check can fail
            assert divergence >= 4 * z * se, "too few draws to refute half the divergence"
            assert s - z * se > divergence / 2


# -- bad parameters --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("family", "kwargs", "error", "match"),
    BAD_PARAMETERS,
    ids=[f"{row[0]}-{i}" for i, row in enumerate(BAD_PARAMETERS)],
)
def test_bad_parameters_raise(family: str, kwargs: dict, error: type, match: str) -> None:
    cls = {c.__name__: c for c in _concrete_families()}[family]
    with pytest.raises(error, match=match):
        cls(**kwargs)


# -- density against cdf ---------------------------------------------------------------------------
def _atom(entry: Entry, noise: Any) -> float:
    return float(noise.atom) if entry.atom is None else entry.atom


def _breaks(entry: Entry, noise: Any, lo: float, hi: float) -> list[float]:
    """The points in ``(lo, hi)`` where the density may jump or kink (from the construction)."""
    delta = noise.sensitivity
    if entry.breaks == "smooth":
        points: np.ndarray = np.array([])
    elif entry.breaks == "origin":
        points = np.array([0.0])
    elif entry.breaks == "support":
        points = np.array([-noise.half_width, 0.0, noise.half_width])
    elif entry.breaks == "steps":
        k = np.arange(math.floor(lo / delta) - 1, math.ceil(hi / delta) + 2)
        points = np.concatenate([k, k + noise.gamma, k - noise.gamma]) * delta
    elif entry.breaks == "cells":
        h = noise.width
        k = np.arange(math.floor((lo - noise.start) / h) - 1, math.ceil((hi - noise.start) / h) + 2)
        points = noise.start + h * k
    else:  # graded: the cells of one period repeated every Δ
        t = np.concatenate([[0.0], np.cumsum(noise.widths)])
        k = np.arange(math.floor(lo / delta) - 1, math.ceil(hi / delta) + 2)
        points = (k[:, None] + t[None, :]).ravel() * delta
    return sorted({float(p) for p in points if lo < p < hi})


#: Gauss–Legendre nodes and weights on [0, 1] (exact for polynomials of degree 9).
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(5)
_NODES, _WEIGHTS = (_NODES + 1) / 2, _WEIGHTS / 2


def _integral(entry: Entry, noise: Any, lo: float, hi: float) -> float:
    """``∫ pdf`` from ``lo`` to ``hi``. A density constant between its breaks (steps, cells):
    5-point Gauss–Legendre on each piece, exact for a constant and a test of constancy
    besides; otherwise adaptive quadrature (QUADPACK) between the breaks."""
    pieces = np.array([lo, *_breaks(entry, noise, lo, hi), hi])
    a, b = pieces[:-1], pieces[1:]
    if entry.breaks in ("steps", "cells", "graded"):
        nodes = a[:, None] + (b - a)[:, None] * _NODES[None, :]
        values = np.asarray(noise.pdf(nodes)) @ _WEIGHTS
        return math.fsum(((b - a) * values).tolist())
    return math.fsum(
        integrate.quad(lambda v: float(noise.pdf(v)), u, w, epsabs=1e-15, limit=200)[0]
        for u, w in zip(a, b, strict=True)
        if w > u
    )


@every(CONTINUOUS)
def test_pdf_integrates_to_the_cdf(entry: Entry) -> None:
    """``cdf(b) − cdf(a) = ∫_a^b pdf + atom·[a < 0 ≤ b]`` by adaptive quadrature between the
    known breakpoints, on cells between quantiles; and the density's total mass plus the atom
    is 1."""
    noise = entry.noise
    atom = _atom(entry, noise)
    x = np.unique(
        np.asarray(noise.ppf([1e-6, 0.01, 0.1, 0.3, 0.45, 0.55, 0.7, 0.9, 0.99, 1 - 1e-6]))
    )
    for a, b in itertools.pairwise(x):
        jump = atom if a < 0.0 <= b else 0.0
        expected = _integral(entry, noise, a, b) + jump
        assert float(noise.cdf(b) - noise.cdf(a)) == pytest.approx(expected, abs=1e-11), (a, b)
    lo, hi = float(noise.isf(1 - 1e-13)), float(noise.isf(1e-13))  # outer tails below 1e-13
    total = _integral(entry, noise, lo, hi)
    assert total + atom == pytest.approx(1.0, abs=1e-11)


@every(DISCRETE)
def test_pmf_sums_to_the_cdf(entry: Entry) -> None:
    """``cdf(k) − cdf(j) = Σ_{j<i≤k} pmf(i)`` (math.fsum); the pmf sums to 1 over the range
    beyond which ``cdf`` and ``sf`` are below 1e-15."""
    noise = entry.noise
    lo, hi = float(noise.ppf(1e-15)), float(noise.ppf(1 - 1e-15))
    k = np.arange(lo - 1, hi + 1)
    p = np.asarray(noise.pmf(k))
    cut = np.asarray(noise.ppf([0.01, 0.2, 0.5, 0.8, 0.99]))
    for j, m in itertools.pairwise(cut):
        inside = (k > j) & (k <= m)
        assert noise.cdf(m) - noise.cdf(j) == pytest.approx(
            math.fsum(p[inside].tolist()), abs=1e-14
        )
    rest = float(noise.cdf(lo - 1) + noise.sf(hi))
    assert math.fsum(p.tolist()) + rest == pytest.approx(1.0, abs=1e-14)
    assert rest <= 4e-15
    assert noise.pmf(0.5) == 0.0 and noise.pmf(k[0] - 0.25) == 0.0


# -- quantiles -------------------------------------------------------------------------------------
Q = np.array([1e-12, 1e-6, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 1 - 1e-6])


@every(LINE)
def test_ppf_and_isf_are_the_quantiles(entry: Entry) -> None:
    """``ppf(q)`` is the smallest x with ``cdf(x) ≥ q`` and ``isf(q)`` the smallest with
    ``sf(x) ≤ q``; where the density is positive they invert ``cdf`` and ``sf`` to 1e-9 of
    ``min(q, 1 − q)``; ``median`` and ``interval`` are ppf's; the ends of the support."""
    noise = entry.noise
    scale = np.minimum(Q, 1 - Q)
    slack = 1e-9 * scale + 1e-16  # the rounding of a cdf summed over cells
    x = np.asarray(noise.ppf(Q))
    assert np.all(np.diff(x) >= 0)
    cdf = np.asarray(noise.cdf(x))
    assert np.all(cdf >= Q - slack)
    s = np.asarray(noise.isf(Q))
    assert np.all(np.diff(s) <= 0)
    assert np.all(np.asarray(noise.sf(s)) <= Q + slack)
    if entry.discrete:
        assert np.all(x == np.round(x)) and np.all(s == np.round(s))
        assert np.all(np.asarray(noise.cdf(x - 1)) < Q)
        assert np.all(np.asarray(noise.sf(s - 1)) > Q)
    else:
        below = x - 1e-9 * (np.abs(x) + noise.sensitivity)
        assert np.all(np.asarray(noise.cdf(below)) <= Q * (1 + 1e-9) + 1e-15)
        atom = _atom(entry, noise) > 0  # at an atom, cdf jumps past q

        def inverted(y: np.ndarray) -> np.ndarray:
            return (np.asarray(noise.pdf(y)) > 0) & ~((y == 0.0) & atom)

        err = np.abs(np.where(Q < 0.5, cdf - Q, np.asarray(noise.sf(x)) - (1 - Q)))
        assert np.all(err[inverted(x)] <= 1e-9 * scale[inverted(x)] + 1e-15)
        sf_err = np.abs(np.asarray(noise.sf(s)) - Q)
        assert np.all(sf_err[inverted(s)] <= 1e-9 * scale[inverted(s)] + 1e-15)
    if entry.symmetric:  # the quantiles mirror: ppf(1 − q) = −ppf(q) (on ℤ, −ppf(q) − 1 … 0)
        lower = Q[(Q >= 1e-6) & (Q < 0.5)]
        up, down = np.asarray(noise.ppf(1 - lower)), np.asarray(noise.ppf(lower))
        if entry.discrete:
            assert np.all((up >= -down - 1) & (up <= -down))
        else:
            np.testing.assert_allclose(up, -down, rtol=1e-9, atol=1e-12 * noise.sensitivity)
        assert abs(noise.median()) <= 1e-12 * noise.sensitivity  # a table's rounding
    atom = _atom(entry, noise)
    if atom > 0:  # every q within the jump of cdf at 0 has the quantile 0
        below = float(noise.cdf(-1e-300))
        np.testing.assert_array_equal(noise.ppf(below + atom * np.array([0.01, 0.5, 1.0])), 0.0)
    assert noise.median() == noise.ppf(0.5)
    assert noise.interval(0.9) == (noise.ppf((1 - 0.9) / 2), noise.ppf((1 + 0.9) / 2))
    low, high = noise.ppf(0.0), noise.ppf(1.0)
    if entry.bounded:
        assert math.isfinite(low) and math.isfinite(high)
        assert noise.cdf(np.nextafter(low, -np.inf)) == 0.0 and noise.sf(high) == 0.0
    else:
        assert (low, high) == (-math.inf, math.inf)
    assert noise.support() == (low, high)
    with pytest.raises(ValueError, match=r"`q` must be in \[0, 1\]"):
        noise.ppf(1.5)


# -- tails -----------------------------------------------------------------------------------------
def _log_density(noise: Any) -> Any:
    return noise.logpmf if noise.discrete else noise.logpdf


def _density(noise: Any) -> Any:
    return noise.pmf if noise.discrete else noise.pdf


def _tail_points(entry: Entry, noise: Any) -> tuple[np.ndarray, float]:
    """Points from the 1e-300 tail on the left to the one on the right (bounded: the support),
    denser towards the ends, and that far point."""
    far = float(noise.isf(1e-300)) if not entry.bounded else float(noise.ppf(1.0))
    near = float(-noise.ppf(1e-300)) if not entry.bounded else float(-noise.ppf(0.0))
    s = np.concatenate([np.linspace(0.0, 1.0, 41), 1.0 - 2.0 ** -np.arange(1.0, 48.0, 3.0)])
    x = np.concatenate([-near * s, far * s])
    if entry.discrete:
        x = np.floor(x)
    return np.unique(x), far


@every(LINE)
def test_tails_agree_with_each_other(entry: Entry) -> None:
    """``sf + cdf = 1`` in the bulk; ``logsf``, ``logcdf`` and the log density are the logs of
    ``sf``, ``cdf`` and the density where those are ≥ 1e-300; sf and logsf are non-increasing;
    a symmetric law's sf is its cdf mirrored (``x ↦ −x``, on ℤ ``−x − 1``) down to 1e-300; an
    unbounded law's logsf and logcdf stay finite where sf and cdf underflow."""
    noise = entry.noise
    x, far = _tail_points(entry, noise)
    sf, cdf = np.asarray(noise.sf(x)), np.asarray(noise.cdf(x))
    logsf, logcdf = np.asarray(noise.logsf(x)), np.asarray(noise.logcdf(x))
    bulk = (cdf > 0.01) & (sf > 0.01)
    np.testing.assert_allclose(sf[bulk] + cdf[bulk], 1.0, rtol=0, atol=1e-14)
    np.testing.assert_allclose(np.logaddexp(logsf[bulk], logcdf[bulk]), 0.0, rtol=0, atol=1e-14)
    atol = 1e-15 if entry.tabulated else 1e-16
    for value, log in ((sf, logsf), (cdf, logcdf)):
        shown = value >= 1e-300
        np.testing.assert_allclose(log[shown], np.log(value[shown]), rtol=1e-12, atol=atol)
    dens = np.asarray(_density(noise)(x))
    shown = dens >= 1e-300
    np.testing.assert_allclose(
        np.asarray(_log_density(noise)(x))[shown], np.log(dens[shown]), rtol=1e-13
    )
    assert np.all(np.diff(sf) <= 0) and np.all(np.diff(logsf) <= 0)
    assert np.all(np.diff(cdf) >= 0) and np.all(np.diff(logcdf) >= 0)
    if entry.symmetric:
        pts = x[x != 0] if _atom(entry, noise) > 0 else x
        mirror = -pts - 1.0 if entry.discrete else -pts
        left, right = np.asarray(noise.cdf(mirror)), np.asarray(noise.sf(pts))
        shown = left >= 1e-300
        np.testing.assert_allclose(right[shown], left[shown], rtol=1e-12, atol=0)
    if not entry.bounded:
        beyond = np.floor(far * np.array([1.5, 3.0, 10.0, 100.0]))
        up, down = np.asarray(noise.logsf(beyond)), np.asarray(noise.logcdf(-beyond))
        assert np.all(np.isfinite(up)) and np.all(np.diff(up) < 0)
        assert np.all(np.isfinite(down)) and np.all(np.diff(down) < 0)
        assert noise.sf(beyond[-1]) == 0.0 or entry.discrete  # underflowed: only its log is left


@every(LINE)
def test_infinite_points_and_discreteness(entry: Entry) -> None:
    noise = entry.noise
    top = noise.cdf(np.inf)
    assert top == pytest.approx(1.0, abs=1e-15) and noise.cdf(-np.inf) == 0.0
    np.testing.assert_array_equal(noise.sf([-np.inf, np.inf]), [top, 0.0])
    assert noise.logsf(np.inf) == -np.inf and noise.logcdf(-np.inf) == -np.inf
    assert abs(noise.logsf(-np.inf)) <= 1e-15 and abs(noise.logcdf(np.inf)) <= 1e-15
    np.testing.assert_array_equal(_log_density(noise)([-np.inf, np.inf]), [-np.inf, -np.inf])
    np.testing.assert_array_equal(_density(noise)([-np.inf, np.inf]), [0.0, 0.0])
    if entry.discrete:  # non-integers: floored in the cdf family, no mass in the pmf
        y = np.array([-3.5, -0.25, 0.0, 0.75, 4.999])
        for method in (noise.cdf, noise.sf, noise.logsf, noise.logcdf):
            np.testing.assert_array_equal(method(y), method(np.floor(y)))
        np.testing.assert_array_equal(noise.logpmf([0.5, -2.25, 1e-9]), [-np.inf] * 3)


POINT_METHODS = ["cdf", "sf", "logcdf", "logsf", "density", "log_density", "ppf", "isf"]


def _method(noise: Any, name: str) -> Any:
    if name == "density":
        return _density(noise)
    if name == "log_density":
        return _log_density(noise)
    return getattr(noise, name)


@every(LINE)
def test_point_methods_follow_the_shape_and_refuse_bad_input(entry: Entry) -> None:
    noise = entry.noise
    for name in POINT_METHODS:
        fn = _method(noise, name)
        assert isinstance(fn(0.5), float) and isinstance(fn(np.float64(0.25)), float)
        assert isinstance(fn(np.array(0.5)), float)
        assert np.shape(fn([[0.0, 0.5, 1.0]])) == (1, 3)
        assert np.shape(fn(np.zeros((2, 0)))) == (2, 0)
        with pytest.raises(ValueError, match="must not contain NaN"):
            fn([0.5, np.nan])
        for junk in (None, 1j, "abc", 10**400):
            with pytest.raises(TypeError, match="must be real numbers"):
                fn(junk)


# -- moments ---------------------------------------------------------------------------------------
@every(ENTRIES)
def test_moments_match_samples(entry: Entry) -> None:
    """Sample means of 200 000 draws against ``mean``, ``var`` and ``expected_cost`` (on ℝ^d:
    the cost of the noise's own norm, and a zero mean per coordinate): each within ``z`` sample
    standard errors, ``z`` the two-sided normal quantile of ALPHA split over the comparisons."""
    noise = entry.noise
    n = 200_000
    x = noise.rvs(n, rng=4242)
    if entry.vector:
        r = np.linalg.norm(x, ord=ORDER[noise.norm], axis=-1)
        pairs = [(r, noise.expected_cost(noise.norm))]
        pairs += [(x[:, k], 0.0) for k in range(noise.dimension)]
    else:
        m, v = noise.mean(), noise.var()
        centred = (x - m) ** 2
        pairs = [
            (x, m),
            (centred, v),
            (np.abs(x), noise.expected_cost("abs")),
            (x * x, noise.expected_cost("squared")),
        ]
        assert noise.std() == pytest.approx(math.sqrt(v), rel=1e-15)
    z = float(stats.norm.isf(ALPHA / (2 * len(pairs))))
    for sample, truth in pairs:
        se = float(np.std(sample)) / math.sqrt(n)
        assert abs(float(np.mean(sample)) - truth) <= z * se + 1e-15 * abs(truth)


# -- repr ------------------------------------------------------------------------------------------
@every(ENTRIES)
def test_repr(entry: Entry) -> None:
    """A closed form's repr is the constructor call that built it, and evaluating it gives the
    same law; a table's or a design's is its summary."""
    noise = entry.noise
    text = repr(noise)
    if entry.code is None:
        assert entry.repr_pattern is not None and re.fullmatch(entry.repr_pattern, text), text
        return
    assert text == entry.code
    parameters = inspect.signature(type(noise)).parameters.values()
    if not entry.vector:  # keywords only (StaircaseND: a positional ε is deprecated, still works)
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters)
    again = eval(text, dict(NAMESPACE))
    assert type(again) is type(noise) and repr(again) == text
    if entry.vector:
        pts = noise.rvs(20, rng=1)
        np.testing.assert_array_equal(again.pdf(pts), noise.pdf(pts))
    else:
        pts = np.asarray(noise.ppf(np.linspace(0.01, 0.99, 21)))
        np.testing.assert_array_equal(_density(again)(pts), _density(noise)(pts))
        np.testing.assert_array_equal(again.cdf(pts), noise.cdf(pts))


# -- self-description ------------------------------------------------------------------------------
def _check_grid(entry: Entry, noise: Any, grid: Any) -> None:
    """The table of the description against the law: total mass 1, the atom, the exact reach,
    and the cells' masses (the pmf on ℤ, located by matching; cdf differences on a grid)."""
    atom = _atom(entry, noise)
    assert grid.atom == atom
    if not grid.equal_cells:  # densities on a graded grid: the law's at the cells' middles
        t = np.concatenate([[0.0], np.cumsum(noise.widths)])
        k = noise.first_period + np.arange(grid.masses.size // noise.widths.size)
        left = (k[:, None] + t[None, :-1]).ravel() * noise.sensitivity
        right = (k[:, None] + t[None, 1:]).ravel() * noise.sensitivity
        np.testing.assert_allclose(noise.pdf(0.5 * (left + right)), grid.masses, rtol=1e-13)
        return
    assert grid.total == pytest.approx(1.0, abs=1e-13)
    if entry.discrete:
        assert grid.reach == noise.sensitivity
        lo = int(noise.ppf(1e-12)) - grid.masses.size
        k = np.arange(lo, -lo + 1)
        p = np.asarray(noise.pmf(k))
        size = grid.masses.size
        gaps = [np.max(np.abs(p[i : i + size] - grid.masses)) for i in range(p.size - size + 1)]
        assert min(gaps) <= 1e-15
    else:
        assert grid.reach == pytest.approx(noise.sensitivity / noise.width, rel=1e-15)
        cells = noise.start + noise.width * np.arange(grid.masses.size + 1)
        masses = np.diff(noise.cdf(cells)) - np.where(
            (cells[:-1] < 0) & (cells[1:] >= 0), atom, 0.0
        )
        np.testing.assert_allclose(masses, grid.masses, rtol=1e-9, atol=1e-15)


def _check_pieces(entry: Entry, noise: Any, pieces: Any) -> None:
    """The density is constant between consecutive edges (on both sides), the stated tail mass
    bounds the mass beyond the last edge, the atom is the construction's."""
    edges = np.asarray(pieces.edges)[:200]
    assert edges[0] == 0.0 and np.all(np.diff(edges) >= 0)
    lo, hi = edges[:-1], edges[1:]
    wide = hi > lo
    for frac in (0.25, 0.75):
        inner = lo[wide] + frac * (hi[wide] - lo[wide])
        middle = 0.5 * (lo[wide] + hi[wide])
        np.testing.assert_allclose(noise.pdf(inner), noise.pdf(middle), rtol=1e-14)
        np.testing.assert_allclose(noise.pdf(-inner), noise.pdf(middle), rtol=1e-14)
    assert 2 * noise.sf(pieces.edges[-1]) <= pieces.tail_mass * (1 + 1e-12)
    assert pieces.atom == _atom(entry, noise)
    pts = np.linspace(0.05, 0.95, 7) * edges[min(edges.size - 1, 8)]
    np.testing.assert_allclose(pieces.log_density(pts), noise.logpdf(pts), rtol=1e-14)


@every(ENTRIES)
def test_privacy_source(entry: Entry) -> None:
    """``privacy_source()`` gives the kind its construction calls for, the certifier of that
    kind, the noise's guarantee, sensitivity, dimension and discreteness, its samplers, and a
    table or edges that agree with its density."""
    noise = entry.noise
    src = noise.privacy_source()
    assert src.kind == entry.source and src.certifier == CERTIFIERS[entry.source]
    assert src.family == type(noise).__name__
    assert src.guarantee == noise.privacy
    assert src.sensitivity == noise.sensitivity
    assert src.dimension == (noise.dimension if entry.vector else 1)
    assert src.discrete == entry.discrete and src.tabulated == entry.tabulated
    np.testing.assert_array_equal(src.sample_float(7, rng=3), noise.rvs(7, rng=3))
    assert (src.sample_exact is not None) == entry.discrete
    if entry.discrete:
        draws = np.asarray(src.sample_exact(500, rng=random.Random(5)), dtype=float)
        assert draws.shape == (500,) and np.all(np.asarray(noise.pmf(draws)) > 0)
    if src.grid is not None:
        _check_grid(entry, noise, src.grid)
    if src.pieces is not None:
        _check_pieces(entry, noise, src.pieces)
    if entry.source == SourceKind.GRID_2D:
        assert src.grid2d is not None and src.parameters["width"] == noise.width


# -- sampler ---------------------------------------------------------------------------------------
@every(ENTRIES)
def test_sampler_shapes_and_reproducibility(entry: Entry) -> None:
    noise = entry.noise
    point = (noise.dimension,) if entry.vector else ()
    one = noise.rvs(rng=1)
    if entry.vector:
        assert one.shape == point
    else:
        assert isinstance(one, float)
    assert noise.rvs(5, rng=1).shape == (5, *point)
    assert noise.rvs((2, 3), rng=1).shape == (2, 3, *point)
    assert noise.rvs(0, rng=1).shape == (0, *point)
    np.testing.assert_array_equal(noise.rvs(10, rng=7), noise.rvs(10, rng=np.random.default_rng(7)))
    assert not np.array_equal(noise.rvs(10, rng=7), noise.rvs(10, rng=8))
    assert np.all(np.isfinite(noise.rvs(1000, rng=2)))
    if entry.discrete:
        draws = noise.rvs(1000, rng=2)
        assert np.all(draws == np.round(draws))
    with pytest.raises(ValueError, match=r"`size` must"):
        noise.rvs(-1, rng=0)
    with pytest.raises(TypeError, match="`rng` must be None, an int seed"):
        noise.rvs(3, rng="seed")
    if not entry.vector:  # (a 2-D design's cost without a cost is deprecated: test_vector_noise)
        with pytest.raises(TypeError, match="`cost` must be"):
            noise.expected_cost(None)
        with pytest.raises(ValueError, match=r"`size` must have at most 5e\+08 elements"):
            noise.rvs((100_000, 100_000), rng=0)


# -- local randomizers -----------------------------------------------------------------------------
def each_randomizer() -> Any:
    return pytest.mark.parametrize("entry", RANDOMIZERS, ids=[e.id for e in RANDOMIZERS])


@each_randomizer()
def test_randomizer_goodness_of_fit(entry: RandomizerEntry) -> None:
    """Each row's draws against the row (chi-square, Bonferroni over the rows)."""
    q = entry.randomizer
    n, rows = 100_000, q.matrix.shape[0]
    for i, x in enumerate(q.inputs.tolist()):
        draws = q.rvs(x, size=n, rng=100 + i)
        counts = np.array([np.count_nonzero(draws == y) for y in q.outputs.tolist()])
        assert counts.sum() == n
        expected, observed = _merge_sparse(n * q.matrix[i], counts.astype(float))
        statistic = float(np.sum((observed - expected) ** 2 / expected))
        assert statistic < stats.chi2.isf(ALPHA / rows, df=expected.size - 1)


@each_randomizer()
def test_randomizer_empirical_privacy(entry: RandomizerEntry) -> None:
    """The outputs of every two inputs (300 000 draws each) never refute ε-LDP at the
    construction's ε (false-failure rate ALPHA per pair), and some pair refutes half of it."""
    q = entry.randomizer
    n = 300_000
    labels = q.outputs.tolist()
    counts = []
    for i, x in enumerate(q.inputs.tolist()):
        draws = q.rvs(x, size=n, rng=200 + i)
        counts.append(np.array([np.count_nonzero(draws == y) for y in labels]))
    pairs = list(itertools.combinations(range(len(counts)), 2))
    found_half = False
    for a, b in pairs:
        assert privacy_violations(counts[a], counts[b], entry.epsilon) == []
        found_half |= privacy_violations(counts[a], counts[b], entry.epsilon / 2) != []
    if entry.teeth:  # the same data refute half the ε: the check can fail
        assert found_half


@pytest.mark.parametrize(
    ("kwargs", "error", "match"), BAD_RANDOMIZERS, ids=[str(i) for i in range(len(BAD_RANDOMIZERS))]
)
def test_randomizer_bad_parameters_raise(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        optmech.LocalRandomizer(**kwargs)


@each_randomizer()
def test_randomizer_repr(entry: RandomizerEntry) -> None:
    """The repr is the summary: the size and the achieved ε (a matrix is no constructor call)."""
    q = entry.randomizer
    k, m = q.matrix.shape
    text = repr(q)
    match = re.fullmatch(
        rf"LocalRandomizer\({k} inputs × {m} outputs, epsilon=([0-9.e+-]+)\)", text
    )
    assert match is not None, text
    assert float(match[1]) == pytest.approx(entry.epsilon, rel=1e-9)


@each_randomizer()
def test_randomizer_privacy_source(entry: RandomizerEntry) -> None:
    """A mechanism matrix over the complete graph: the matrix certifier reads it and certifies
    the construction's ε (rounded up, within the float rounding of the entries)."""
    from optmech.certify import certify

    q = entry.randomizer
    src = q.privacy_source()
    assert src.kind == SourceKind.MATRIX and src.certifier == CERTIFIERS[SourceKind.MATRIX]
    assert src.family == "LocalRandomizer" and src.tabulated and src.discrete
    assert src.matrix is not None and not src.matrix.count_query
    np.testing.assert_array_equal(src.matrix.mechanism, q.matrix)
    k = q.matrix.shape[0]
    edges = {tuple(sorted(map(int, e))) for e in np.asarray(src.matrix.graph)}
    assert edges == set(itertools.combinations(range(k), 2))
    report = certify(q)
    assert report.value == pytest.approx(entry.epsilon, rel=1e-12)
    assert report.value == pytest.approx(q.epsilon, rel=1e-14)
    assert src.guarantee == PureDP(q.epsilon)
    assert src.matrix.sample(q.inputs[0], 3) in q.outputs


@each_randomizer()
def test_randomizer_sampler_shapes_and_reproducibility(entry: RandomizerEntry) -> None:
    q = entry.randomizer
    x = q.inputs[0].item()
    one = q.rvs(x, rng=1)
    assert not isinstance(one, np.ndarray) and one in q.outputs
    assert q.rvs(x, 5, rng=1).shape == (5,)
    assert q.rvs(x, (2, 3), rng=1).shape == (2, 3)
    assert q.rvs(x, 0, rng=1).shape == (0,)
    both = q.inputs[:2]
    assert q.rvs(both, rng=1).shape == (2,)
    assert q.rvs(both, (4, 2), rng=1).shape == (4, 2)
    np.testing.assert_array_equal(q.rvs(x, 10, rng=7), q.rvs(x, 10, rng=np.random.default_rng(7)))
    assert not np.array_equal(q.rvs(x, 50, rng=7), q.rvs(x, 50, rng=8))
    with pytest.raises(ValueError, match=r"`size` must"):
        q.rvs(x, -1, rng=0)
    with pytest.raises(ValueError, match=r"`size` must be a shape `x` broadcasts to"):
        q.rvs(both, 3, rng=0)
    with pytest.raises(TypeError, match="`rng` must be None, an int seed"):
        q.rvs(x, 3, rng="seed")
    with pytest.raises(ValueError, match=r"`x` must hold inputs of the randomizer"):
        q.rvs(12345.5, rng=0)
