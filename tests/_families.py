"""Every noise family of optmech, one registry: the instances the conformance battery runs over.

:mod:`test_family_battery` runs each of its checks (goodness of fit, empirical privacy, density
against cdf, quantiles, tails, moments against samples, repr, self-description, sampler
shapes) on every entry of :data:`ENTRIES`, and fails for a concrete subclass of
``NoiseDistribution`` or ``VectorNoise`` in the package that has no entry here: a new family is
added in this one place. :data:`BAD_PARAMETERS` is the one table of refused constructor
arguments (every family class with a constructor of its own has rows).

An entry records what is known about its instance from its construction, not from the code
under test: the space it lives on, its atom at 0, whether it is symmetric or bounded, the points
where its density jumps or kinks (for quadrature), the self-description it must give, and its
repr (the constructor call itself for the closed-form families; a pattern for the summaries of
tables and designs). Designed entries are real ``design_noise`` results, solved on first use
and cached for the process.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
from _reference import laplace_like
from _small_results import plane_design

import optmech
from optmech.mechanisms.description import SourceKind
from optmech.mechanisms.graded import GradedNoise
from optmech.mechanisms.piecewise import LatticeNoise, PiecewiseConstantNoise
from optmech.mechanisms.tails2d import GaugeTail, gauge_polygon
from optmech.privacy import ApproxDP, PureDP

__all__ = [
    "BAD_PARAMETERS",
    "BAD_RANDOMIZERS",
    "ENTRIES",
    "NAMESPACE",
    "RANDOMIZERS",
    "Entry",
    "RandomizerEntry",
    "entries",
]


@dataclass(frozen=True)
class Entry:
    """One instance of a family and what its construction tells about it.

    Attributes
    ----------
    id : str
        Test id.
    make : callable
        Builds the instance (called once per process, see :attr:`noise`).
    space : {"R", "Z", "R^d"}
        The line, the integers, or ℝ^d.
    source : SourceKind
        The kind of ``privacy_source()`` the instance must give.
    tabulated : bool
        Whether its numbers are stored (a table or a design), as the description must say.
    code : str or None
        The constructor call that builds it, which its repr must be (closed forms).
    repr_pattern : str or None
        A regular expression its (summary) repr must match in full, when it is no constructor
        call.
    symmetric : bool
        Symmetric about 0 (``P(X ≤ −x) = P(X ≥ x)``).
    bounded : bool
        Bounded support.
    atom : float or None
        Mass at 0 by construction (None: a design, whose atom is read and checked against its
        density's total mass).
    breaks : str
        Where the density jumps or kinks: ``"smooth"``, ``"origin"``, ``"steps"`` (the
        staircase's ``kΔ`` and ``(k + γ)Δ``), ``"support"`` (``±half_width`` and 0),
        ``"cells"`` (``start + k·width``), ``"graded"`` (the periodic graded partition).
    vector_bins : {"shells", "cells"} or None
        For noise in ℝ^d: the density is constant on shells of its norm (the staircase in
        ℝ^d, Geng, Kairouz, Oh & Viswanath 2015) or on square cells of ``width`` (tables in ℝ²).
    teeth : bool
        The empirical privacy test's sample is large enough to refute half the guarantee (not
        at very small or very large ε, nor at tiny δ).
    """

    id: str
    make: Callable[[], Any] = field(repr=False)
    space: str
    source: SourceKind
    tabulated: bool = False
    code: str | None = None
    repr_pattern: str | None = None
    symmetric: bool = True
    bounded: bool = False
    atom: float | None = 0.0
    breaks: str = "smooth"
    vector_bins: str | None = None
    teeth: bool = True

    @property
    def noise(self) -> Any:
        """The instance (built once per process)."""
        return _build(self.id)

    @property
    def discrete(self) -> bool:
        return self.space == "Z"

    @property
    def vector(self) -> bool:
        return self.space == "R^d"


#: The names a closed form's repr is evaluated in: the classes of ``optmech.mechanisms``.
NAMESPACE = {name: getattr(optmech.mechanisms, name) for name in optmech.mechanisms.__all__}


def _closed(code: str, space: str, source: SourceKind, **known: Any) -> Entry:
    """An entry of a closed-form family, built by evaluating ``code`` (its repr)."""
    return Entry(code, lambda: eval(code, dict(NAMESPACE)), space, source, code=code, **known)


# -- tables built by hand, their privacy known from their construction ---------------------------
def staircase_table(atom: float) -> dict[str, Any]:
    """The staircase (ε = 1, Δ = 1, γ = 1/2) tabulated on ``[−2, 2)`` in cells of 1/4 with
    geometric tails, scaled by ``1 − atom``: the keyword arguments of
    :class:`PiecewiseConstantNoise` but the atom, sensitivity and privacy."""
    b, gamma, h = math.exp(-1.0), 0.5, 0.25
    a = (1 - b) / (2 * (gamma + (1 - gamma) * b)) * (1 - atom)

    def value(centre: float) -> float:
        z = abs(centre)
        k = math.floor(z)
        return a * b ** (k + (1 if z - k >= gamma else 0))

    centres = -2.0 + h * (np.arange(16) + 0.5)
    right = np.array([value(2.0 + h * (c + 0.5)) for c in range(4)])
    return {
        "start": -2.0,
        "width": h,
        "densities": np.array([value(c) for c in centres]),
        "period": 4,
        "left_tail": (right[::-1].copy(), b),
        "right_tail": (right, b),
    }


def _staircase_table_with_atom() -> PiecewiseConstantNoise:
    """The staircase table of `staircase_table` scaled by 0.8, plus an atom of 0.2 at 0: the
    density part is 1-DP, and a shift moves the atom to a point of zero mass, so the law is
    (1, 0.2)-DP, tightly."""
    atom = 0.2
    return PiecewiseConstantNoise(
        **staircase_table(atom), atom=atom, sensitivity=1.0, privacy=ApproxDP(1.0, atom)
    )


def _asymmetric_table() -> PiecewiseConstantNoise:
    """Cells of width 1/4 on ``[−1, 1.5)``, the density falling by ``e^(−0.3)`` per cell to
    the left of the peak cell ``[0, 0.25)`` and by ``e^(−0.5)`` per cell to its right, tails
    continuing each rate: neighbouring inputs (Δ = 1/2, two cells) change it by at most
    ``e^(2·0.5)``, so it is 1-DP, and asymmetric."""
    h, left, right = 0.25, 0.3, 0.5
    j = np.arange(-4, 6)  # cell j is [jh, (j + 1)h)
    dens = np.exp(np.where(j < 0, left * j, -right * j))
    lb, rb = math.exp(-left), math.exp(-right)
    tails = dens[0] * lb / (1 - lb) + dens[-1] * rb / (1 - rb)
    total = h * (dens.sum() + tails)
    return PiecewiseConstantNoise(
        start=-1.0,
        width=h,
        densities=dens / total,
        period=1,
        left_tail=([dens[0] * lb / total], lb),
        right_tail=([dens[-1] * rb / total], rb),
        sensitivity=0.5,
        privacy=PureDP(1.0),
    )


def discrete_staircase_table() -> dict[str, Any]:
    """The discrete staircase (ε = 1, Δ = 3, r = 2; Geng & Viswanath 2016) as a table on
    ``−6..6`` with its geometric tails: the keywords of :class:`LatticeNoise` but the
    sensitivity (3) and privacy (1-DP)."""
    eps, delta, r = 1.0, 3, 2
    b = math.exp(-eps)
    a = (1 - b) / (2 * r + 2 * b * (delta - r) - (1 - b))

    def pmf(i: int) -> float:
        k, j = divmod(abs(i), delta)
        return a * b ** (k + (0 if j < r else 1))

    return {
        "start": -6,
        "pmf": np.array([pmf(i) for i in range(-6, 7)]),
        "period": 3,
        "left_tail": (np.array([pmf(i) for i in range(-9, -6)]), b),
        "right_tail": (np.array([pmf(i) for i in range(7, 10)]), b),
    }


def _discrete_staircase_lattice() -> LatticeNoise:
    """The table of `discrete_staircase_table`: 1-DP, and asymmetric in nothing but its
    storage."""
    return LatticeNoise(**discrete_staircase_table(), sensitivity=3, privacy=PureDP(1.0))


def staircase_graded_keywords(eps: float = 2.0, gamma: float = 0.2) -> dict[str, Any]:
    """The keywords of :class:`GradedNoise` for the staircase f_γ (Geng & Viswanath 2016) on the
    graded partition ``{0, γ, 1 − γ, 1}`` of each period: ε-DP (ε = 2, γ = 0.2 by default)."""
    b = math.exp(-eps)
    a = (1 - b) / (2 * (gamma + (1 - gamma) * b))
    dens = a * np.array([b, b, 1.0, 1.0, b, b])  # periods −1 and 0
    return {
        "sensitivity": 1.0,
        "widths": [gamma, 1 - 2 * gamma, gamma],
        "first_period": -1,
        "densities": dens,
        "left_tail": (dens[:3] * b, b),
        "right_tail": (dens[3:] * b, b),
        "privacy": PureDP(eps),
    }


def staircase_as_graded(eps: float = 2.0, gamma: float = 0.2) -> GradedNoise:
    """The graded staircase of `staircase_graded_keywords`."""
    return GradedNoise(**staircase_graded_keywords(eps, gamma))


def _gauge_grid_2d() -> optmech.PiecewiseConstantNoise2D:
    """Cells of width 1/2 on ``[−1, 1)²`` holding the ℓ∞ gauge tail's own values (ratio
    ``e^(−1)`` per Δ of ℓ∞ distance), closed by that tail: 1-DP for ℓ∞ shifts of length 1."""
    from optmech.certify.noise2d import footprint

    tail = GaugeTail(*gauge_polygon(footprint("linf", 2)), Fraction(1, 2), float(np.exp(-1)))
    i, j = np.meshgrid(np.arange(-2, 2), np.arange(-2, 2), indexing="ij")
    return optmech.PiecewiseConstantNoise2D(
        tail.values(i, j), width=0.5, sensitivity=1.0, norm="linf", tails=[(tail, 1.0)], epsilon=1.0
    )


# -- real designs --------------------------------------------------------------------------------
def _design(privacy: Any, **options: Any) -> Callable[[], Any]:
    def make() -> Any:
        return optmech.design_noise(privacy, **options)

    return make


_TABLE = r"privacy=(PureDP|ApproxDP)\(epsilon=[0-9.e+-]+(, delta=[0-9.e+-]+)?\)"
_DESIGNED = (
    r"{cls}\({guarantee}, cost=Absolute\(\), value=[0-9.e+-]+, lower_bound=[0-9.e+-]+, "
    r"grid={grid}, resolution=\d+, periods=\d+, certified_epsilon=[0-9.e+inf-]+, "
    r"certified_delta=[0-9.e+-]+, solver=\w+, status=optimal\)"
)


def _designed(
    entry_id: str, make: Callable[[], Any], space: str, shown: tuple[str, str, str], **known: Any
) -> Entry:
    """An entry of a 1-D design: tabulated on its grid, its atom read from the design, its repr
    the designed pattern with ``shown = (class, guarantee, grid)``."""
    cls, guarantee, grid = shown
    pattern = _DESIGNED.format(cls=cls, guarantee=guarantee, grid=grid)
    return Entry(
        entry_id,
        make,
        space,
        SourceKind.GRID,
        tabulated=True,
        repr_pattern=pattern,
        atom=None,
        **known,
    )


R, Z, RD = "R", "Z", "R^d"
K = SourceKind

ENTRIES: list[Entry] = [
    # -- closed forms on ℝ and ℤ ---------------------------------------------------------------
    _closed("Laplace(epsilon=1.0, sensitivity=2.0)", R, K.LAPLACE, breaks="origin"),
    _closed("Laplace(epsilon=10.0, sensitivity=3.0)", R, K.LAPLACE, breaks="origin"),
    _closed("Staircase(epsilon=1.0, sensitivity=1.5, gamma=0.38)", R, K.PIECEWISE, breaks="steps"),
    _closed("Staircase(epsilon=6.0, sensitivity=1.0, gamma=0.05)", R, K.PIECEWISE, breaks="steps"),
    _closed(
        "Staircase(epsilon=0.01, sensitivity=1.0, gamma=0.4988)",
        R,
        K.PIECEWISE,
        breaks="steps",
        teeth=False,
    ),
    _closed("Geometric(epsilon=1.0, sensitivity=2)", Z, K.GRID),
    _closed("Geometric(epsilon=0.1, sensitivity=1)", Z, K.GRID, teeth=False),
    _closed("DiscreteStaircase(epsilon=1.0, sensitivity=3, r=2)", Z, K.GRID),
    _closed("DiscreteStaircase(epsilon=20.0, sensitivity=3, r=2)", Z, K.GRID, teeth=False),
    _closed(
        "UniformAtom(delta=0.8, sensitivity=2.0, alpha=0.4)",
        R,
        K.PIECEWISE,
        bounded=True,
        atom=0.4,
        breaks="support",
    ),
    _closed(
        "UniformAtom(delta=0.3, sensitivity=1.0, alpha=0.0)",
        R,
        K.PIECEWISE,
        bounded=True,
        breaks="support",
    ),
    _closed(
        "TruncatedLaplace(epsilon=1.0, delta=0.2, sensitivity=1.0)",
        R,
        K.THEOREM,
        bounded=True,
        breaks="support",
    ),
    _closed(
        "TruncatedLaplace(epsilon=4.0, delta=1e-08, sensitivity=1.0)",
        R,
        K.THEOREM,
        bounded=True,
        breaks="support",
        teeth=False,
    ),
    _closed(
        "Gaussian(epsilon=0.9, delta=1e-05, sensitivity=2.0, calibration='classic')",
        R,
        K.GAUSSIAN,
        teeth=False,
    ),
    _closed(
        "Gaussian(epsilon=1.0, delta=0.2, sensitivity=1.0, calibration='analytic')", R, K.GAUSSIAN
    ),
    # -- tables ----------------------------------------------------------------------------------
    Entry(
        "PiecewiseConstantNoise(laplace-like)",
        lambda: laplace_like(0.25, 1.0, 0.25, cells=8, claimed_epsilon=1.0),
        R,
        K.GRID,
        tabulated=True,
        repr_pattern=r"PiecewiseConstantNoise\(start=-2.0, width=0.25, cells=16, period=1, "
        r"atom=0.0, sensitivity=1.0, privacy=PureDP\(epsilon=1.0\)\)",
        breaks="cells",
    ),
    Entry(
        "PiecewiseConstantNoise(staircase+atom)",
        _staircase_table_with_atom,
        R,
        K.GRID,
        tabulated=True,
        repr_pattern=r"PiecewiseConstantNoise\(start=-2.0, width=0.25, cells=16, period=4, "
        r"atom=0.2, sensitivity=1.0, privacy=ApproxDP\(epsilon=1.0, delta=0.2\)\)",
        atom=0.2,
        breaks="cells",
    ),
    Entry(
        "PiecewiseConstantNoise(asymmetric)",
        _asymmetric_table,
        R,
        K.GRID,
        tabulated=True,
        repr_pattern=r"PiecewiseConstantNoise\(start=-1.0, width=0.25, cells=10, period=1, "
        r"atom=0.0, sensitivity=0.5, privacy=PureDP\(epsilon=1.0\)\)",
        symmetric=False,
        breaks="cells",
    ),
    Entry(
        "LatticeNoise(discrete staircase)",
        _discrete_staircase_lattice,
        Z,
        K.GRID,
        tabulated=True,
        repr_pattern=r"LatticeNoise\(start=-6, points=13, period=3, sensitivity=3, "
        r"privacy=PureDP\(epsilon=1.0\)\)",
    ),
    Entry(
        "GradedNoise(staircase)",
        staircase_as_graded,
        R,
        K.GRID,
        tabulated=True,
        repr_pattern=r"GradedNoise\(sensitivity=1.0, cells_per_period=3, first_period=-1, "
        r"periods=2, privacy=PureDP\(epsilon=2.0\), narrowest=0.2\)",
        breaks="graded",
    ),
    # -- designs ---------------------------------------------------------------------------------
    _designed(
        "design(uniform grid)",
        _design(PureDP(1.0), sensitivity=1.0, cost="abs", resolution=8, periods=3, grid="uniform"),
        R,
        ("DesignedPiecewiseNoise", "1-DP", "uniform"),
        breaks="cells",
    ),
    _designed(
        "design(graded grid, eps=8)",
        _design(PureDP(8.0), sensitivity=1.0, cost="abs"),
        R,
        ("DesignedGradedNoise", "8-DP", "graded"),
        breaks="graded",
    ),
    _designed(
        "design(lattice)",
        _design(PureDP(1.0), sensitivity=3, cost="abs", integer=True),
        Z,
        ("DesignedLatticeNoise", "1-DP", "integer"),
    ),
    _designed(
        "design(eps, delta)",
        _design(ApproxDP(1.0, 0.1), sensitivity=1.0, cost="abs", resolution=8),
        R,
        ("DesignedPiecewiseNoise", r"\(1, 0.1\)-DP", "uniform"),
        bounded=True,
        breaks="cells",
    ),
    # -- noise in ℝ^d ----------------------------------------------------------------------------
    _closed(
        "StaircaseND(epsilon=1.0, gamma=0.4, sensitivity=1.0, norm='l2', dimension=2)",
        RD,
        K.THEOREM,
        vector_bins="shells",
    ),
    _closed(
        "StaircaseND(epsilon=2.0, gamma=0.3, sensitivity=0.5, norm='l1', dimension=3)",
        RD,
        K.THEOREM,
        vector_bins="shells",
    ),
    Entry(
        "PiecewiseConstantNoise2D(gauge)",
        _gauge_grid_2d,
        RD,
        K.GRID_2D,
        tabulated=True,
        repr_pattern=r"PiecewiseConstantNoise2D\(4x4 cells of width 0.5, sensitivity=1.0, "
        r"norm='linf', epsilon=1.0\)",
        vector_bins="cells",
    ),
    Entry(
        "design(2-D, l1)",
        functools.partial(plane_design, "l1", resolution=4, periods=3),
        RD,
        K.GRID_2D,
        tabulated=True,
        repr_pattern=r"DesignedNoise2D\(24x24 cells of width 0.25, sensitivity=1.0, "
        r"norm='l1', epsilon=1.0\)",
        vector_bins="cells",
    ),
]

_BY_ID = {e.id: e for e in ENTRIES}
assert len(_BY_ID) == len(ENTRIES), "entry ids must be unique"


@functools.cache
def _build(entry_id: str) -> Any:
    return _BY_ID[entry_id].make()


def entries(*, space: str | tuple[str, ...] | None = None) -> list[Entry]:
    """The entries on ``space`` (one or several of ``"R"``, ``"Z"``, ``"R^d"``; all if None)."""
    if space is None:
        return list(ENTRIES)
    spaces = (space,) if isinstance(space, str) else space
    return [e for e in ENTRIES if e.space in spaces]


# -- refused constructor arguments: (family, keywords, error, message) ---------------------------
def _table(**changes: Any) -> dict[str, Any]:
    """A valid two-cell table of PiecewiseConstantNoise, with ``changes``."""
    base = {
        "start": 0.0,
        "width": 1.0,
        "densities": [0.5, 0.5],
        "period": 1,
        "sensitivity": 1.0,
        "privacy": PureDP(1.0),
    }
    return base | changes


def _lattice(**changes: Any) -> dict[str, Any]:
    return (
        {"start": 0, "pmf": [0.5, 0.5], "period": 1, "sensitivity": 1}
        | {"privacy": PureDP(1.0)}
        | changes
    )


def _stair_nd(**changes: Any) -> dict[str, Any]:
    return {"epsilon": 1.0, "gamma": 0.5} | changes


def _discrete(**changes: Any) -> dict[str, Any]:
    """Valid keywords of DiscreteStaircase (Δ = 3, r = 1), with ``changes``."""
    return {"epsilon": 1.0, "sensitivity": 3, "r": 1} | changes


def _graded(**changes: Any) -> dict[str, Any]:
    """The keywords of the graded staircase of :data:`ENTRIES`, with ``changes``."""
    return staircase_graded_keywords() | changes


def _grid2d(**changes: Any) -> dict[str, Any]:
    """The keywords of the ℓ∞ gauge table of :data:`ENTRIES`, with ``changes``."""
    noise = _gauge_grid_2d()
    base = {
        "densities": noise.densities,
        "width": 0.5,
        "sensitivity": 1.0,
        "norm": "linf",
        "tails": noise.tails,
        "epsilon": 1.0,
    }
    return base | changes


_EPS_0_700 = r"`epsilon` must .*\[1e-06, 700\]; got 0.0"
BAD_PARAMETERS: list[tuple[str, dict[str, Any], type[Exception], str]] = [
    # Laplace
    (
        "Laplace",
        {"epsilon": 0.0},
        ValueError,
        r"`epsilon` must be a finite real number in \(0, inf\)",
    ),
    ("Laplace", {"epsilon": -2.0}, ValueError, r"`epsilon`.*got -2.0"),
    ("Laplace", {"epsilon": math.nan}, ValueError, r"`epsilon`.*nan"),
    ("Laplace", {"epsilon": math.inf}, ValueError, r"`epsilon`.*inf"),
    ("Laplace", {"epsilon": "x"}, TypeError, r"`epsilon`"),
    ("Laplace", {"epsilon": None}, TypeError, r"`epsilon`"),
    ("Laplace", {"epsilon": 1.0, "sensitivity": 0.0}, ValueError, r"`sensitivity`"),
    ("Laplace", {"epsilon": 1.0, "sensitivity": math.inf}, ValueError, r"`sensitivity`"),
    ("Laplace", {"epsilon": 1e-300, "sensitivity": 1e300}, ValueError, r"Laplace scale"),
    ("Laplace", {"epsilon": 1e300, "sensitivity": 1e-300}, ValueError, r"Laplace scale"),
    # Geometric
    ("Geometric", {"epsilon": 0.0}, ValueError, r"`epsilon`"),
    ("Geometric", {"epsilon": math.nan}, ValueError, r"`epsilon`"),
    ("Geometric", {"epsilon": "1"}, TypeError, r"`epsilon`"),
    (
        "Geometric",
        {"epsilon": 1.0, "sensitivity": 1.5},
        ValueError,
        r"`sensitivity` must be an integer in \[1, 9007199254740992\]; got 1.5",
    ),
    ("Geometric", {"epsilon": 1.0, "sensitivity": 0}, ValueError, r"`sensitivity`"),
    ("Geometric", {"epsilon": 1.0, "sensitivity": 10**400}, ValueError, r"`sensitivity`"),
    ("Geometric", {"epsilon": 1e4, "sensitivity": 1}, ValueError, r"`epsilon`/`sensitivity`"),
    ("Geometric", {"epsilon": 1e-6, "sensitivity": 10**9}, ValueError, r"`epsilon`/`sensitivity`"),
    # Staircase
    ("Staircase", {"epsilon": 0.0, "gamma": 0.5}, ValueError, _EPS_0_700),
    ("Staircase", {"epsilon": -1.0, "gamma": 0.5}, ValueError, r"`epsilon`.*got -1.0"),
    ("Staircase", {"epsilon": math.nan, "gamma": 0.5}, ValueError, r"`epsilon`.*got nan"),
    ("Staircase", {"epsilon": math.inf, "gamma": 0.5}, ValueError, r"`epsilon`.*got inf"),
    ("Staircase", {"epsilon": 701.0, "gamma": 0.5}, ValueError, r"`epsilon`.*700"),
    ("Staircase", {"epsilon": "1", "gamma": 0.5}, TypeError, r"`epsilon` must be a real number"),
    ("Staircase", {"epsilon": True, "gamma": 0.5}, TypeError, r"`epsilon`"),
    (
        "Staircase",
        {"epsilon": 1.0, "gamma": 1.5},
        ValueError,
        r"`gamma` must be .*\[0, 1\]; got 1.5",
    ),
    ("Staircase", {"epsilon": 1.0, "gamma": -0.1}, ValueError, r"`gamma`.*got -0.1"),
    ("Staircase", {"epsilon": 1.0, "gamma": math.nan}, ValueError, r"`gamma`.*nan"),
    ("Staircase", {"epsilon": 1.0, "gamma": None}, TypeError, r"`gamma`"),
    ("Staircase", {"epsilon": 1.0, "gamma": 0.5, "sensitivity": 0.0}, ValueError, r"`sensitivity`"),
    (
        "Staircase",
        {"epsilon": 1.0, "gamma": 0.5, "sensitivity": -2.0},
        ValueError,
        r"`sensitivity`",
    ),
    (
        "Staircase",
        {"epsilon": 700.0, "gamma": 0.5, "sensitivity": 1e-305},
        ValueError,
        r"`sensitivity` and `epsilon`",
    ),
    (
        "Staircase",
        {"epsilon": 1e-6, "gamma": 0.5, "sensitivity": 1e297},
        ValueError,
        r"`sensitivity` and `epsilon`",
    ),
    # DiscreteStaircase
    (
        "DiscreteStaircase",
        _discrete(sensitivity=2.5),
        ValueError,
        r"`sensitivity` must be an integer in \[1, 1000000\]; got 2.5",
    ),
    ("DiscreteStaircase", _discrete(sensitivity=0), ValueError, r"`sensitivity`.*got 0"),
    ("DiscreteStaircase", _discrete(sensitivity=10**7), ValueError, r"`sensitivity`"),
    ("DiscreteStaircase", _discrete(sensitivity="3"), TypeError, r"`sensitivity`"),
    ("DiscreteStaircase", _discrete(sensitivity=True), TypeError, r"`sensitivity`"),
    ("DiscreteStaircase", _discrete(r=0), ValueError, r"`r` must be .*\[1, 3\]; got 0"),
    ("DiscreteStaircase", _discrete(r=4), ValueError, r"`r`.*\[1, 3\]; got 4"),
    ("DiscreteStaircase", _discrete(r=1.5), ValueError, r"`r`"),
    ("DiscreteStaircase", _discrete(epsilon=0.0), ValueError, r"`epsilon`"),
    ("DiscreteStaircase", _discrete(epsilon=math.nan), ValueError, r"`epsilon`"),
    ("DiscreteStaircase", _discrete(epsilon=math.inf), ValueError, r"`epsilon`"),
    # UniformAtom
    (
        "UniformAtom",
        {"delta": 0.0, "alpha": 0.0},
        ValueError,
        r"`delta` must be a finite real number in \(0, 1\); got 0.0",
    ),
    ("UniformAtom", {"delta": 1.0, "alpha": 0.0}, ValueError, r"`delta` .* got 1.0"),
    ("UniformAtom", {"delta": math.nan, "alpha": 0.0}, ValueError, "`delta`"),
    ("UniformAtom", {"delta": 0.5, "alpha": -0.1}, ValueError, r"`alpha` .*\[0, 0.5\); got -0.1"),
    ("UniformAtom", {"delta": 0.5, "alpha": 0.6}, ValueError, r"`alpha` .* got 0.6"),
    (
        "UniformAtom",
        {"delta": 0.3, "alpha": 0.3},
        ValueError,
        r"`alpha` must be a finite real number in \[0, 0.3\)",
    ),
    (
        "UniformAtom",
        {"delta": 0.5, "alpha": 0.0, "sensitivity": 0.0},
        ValueError,
        r"`sensitivity` .*\(0, inf\)",
    ),
    ("UniformAtom", {"delta": 0.5, "alpha": 0.0, "sensitivity": -1}, ValueError, "`sensitivity`"),
    ("UniformAtom", {"delta": True, "alpha": 0.0}, TypeError, "`delta` must be a real number"),
    ("UniformAtom", {"delta": "0.5", "alpha": 0.0}, TypeError, "`delta`.*str"),
    ("UniformAtom", {"delta": 0.5, "alpha": None}, TypeError, "`alpha`.*NoneType"),
    (
        "UniformAtom",
        {"delta": 1e-300, "alpha": 0.0, "sensitivity": 1e300},
        ValueError,
        "floating-point range",
    ),
    ("UniformAtom", {"delta": 0.5}, TypeError, "alpha"),
    # TruncatedLaplace
    (
        "TruncatedLaplace",
        {"epsilon": 0.0, "delta": 0.1},
        ValueError,
        r"`epsilon` must be a finite real number in \(0, inf\); got 0.0",
    ),
    ("TruncatedLaplace", {"epsilon": math.inf, "delta": 0.1}, ValueError, "`epsilon`"),
    ("TruncatedLaplace", {"epsilon": 1.0, "delta": 0.0}, ValueError, r"`delta` .*\(0, 1\)"),
    ("TruncatedLaplace", {"epsilon": 1.0, "delta": 1.0}, ValueError, "`delta`"),
    (
        "TruncatedLaplace",
        {"epsilon": 1.0, "delta": 0.1, "sensitivity": -2.0},
        ValueError,
        r"`sensitivity` .* got -2.0",
    ),
    ("TruncatedLaplace", {"epsilon": "1", "delta": 0.1}, TypeError, "`epsilon`"),
    ("TruncatedLaplace", {"epsilon": 1.0, "delta": False}, TypeError, "`delta`"),
    (
        "TruncatedLaplace",
        {"epsilon": 1e-300, "delta": 1e-300, "sensitivity": 1e300},
        ValueError,
        "floating-point range",
    ),
    # Gaussian
    (
        "Gaussian",
        {"epsilon": 1.0, "delta": 1e-5},
        ValueError,
        r"`epsilon` must be in \(0, 1\) for calibration='classic'.*analytic",
    ),
    ("Gaussian", {"epsilon": 3.0, "delta": 1e-5}, ValueError, "calibration='analytic'"),
    ("Gaussian", {"epsilon": 0.0, "delta": 1e-5}, ValueError, r"`epsilon` .*\(0, inf\); got 0.0"),
    ("Gaussian", {"epsilon": 0.5, "delta": 0.0}, ValueError, r"`delta` .*\(0, 1\)"),
    ("Gaussian", {"epsilon": 0.5, "delta": 1.0}, ValueError, "`delta`"),
    ("Gaussian", {"epsilon": 0.5, "delta": 1e-5, "sensitivity": 0}, ValueError, "`sensitivity`"),
    (
        "Gaussian",
        {"epsilon": 0.5, "delta": 1e-5, "calibration": "exact"},
        ValueError,
        r"`calibration` must be one of \('classic', 'analytic'\); got 'exact'",
    ),
    (
        "Gaussian",
        {"epsilon": 0.5, "delta": 1e-5, "calibration": None},
        TypeError,
        "`calibration`.*NoneType",
    ),
    ("Gaussian", {"epsilon": [0.5], "delta": 1e-5}, TypeError, "`epsilon`"),
    (
        "Gaussian",
        {"epsilon": 1e-300, "delta": 0.5, "sensitivity": 1e300},
        ValueError,
        "floating-point range",
    ),
    # PiecewiseConstantNoise
    ("PiecewiseConstantNoise", _table(densities=[0.5, 0.4]), ValueError, "sum to 1"),
    ("PiecewiseConstantNoise", _table(densities=[-1.0, 3.0]), ValueError, "non-negative"),
    ("PiecewiseConstantNoise", _table(width=0.0), ValueError, "width"),
    ("PiecewiseConstantNoise", _table(period=0), ValueError, "period"),
    ("PiecewiseConstantNoise", _table(left_tail=([0.1, 0.1], 0.5)), ValueError, "entries"),
    ("PiecewiseConstantNoise", _table(left_tail=([0.1], 1.5)), ValueError, "ratio"),
    ("PiecewiseConstantNoise", _table(left_tail="x"), TypeError, "pair"),
    ("PiecewiseConstantNoise", _table(atom=2.0), ValueError, "atom"),
    ("PiecewiseConstantNoise", _table(privacy="eps=1"), TypeError, "privacy"),
    ("PiecewiseConstantNoise", _table(sensitivity=-1.0), ValueError, "sensitivity"),
    # LatticeNoise
    ("LatticeNoise", _lattice(pmf=[0.3, 0.3]), ValueError, "sum to 1"),
    ("LatticeNoise", _lattice(start=0.5, pmf=[1.0]), ValueError, "start"),
    ("LatticeNoise", _lattice(pmf=[1.0], sensitivity=0), ValueError, "sensitivity"),
    # StaircaseND
    (
        "StaircaseND",
        _stair_nd(epsilon=0.0),
        ValueError,
        r"`epsilon` must be a finite real number in \[1e-06, 700\]",
    ),
    ("StaircaseND", _stair_nd(epsilon="1"), TypeError, r"`epsilon` must be a real number"),
    (
        "StaircaseND",
        _stair_nd(gamma=1.5),
        ValueError,
        r"`gamma` must be a finite real number in \[0, 1\]; got 1.5",
    ),
    (
        "StaircaseND",
        _stair_nd(sensitivity=-1.0),
        ValueError,
        r"`sensitivity` must be .* \(0, inf\); got -1.0",
    ),
    (
        "StaircaseND",
        _stair_nd(norm="l3"),
        ValueError,
        r"`norm` must be one of 'l1', 'l2', 'linf'; got 'l3'",
    ),
    (
        "StaircaseND",
        _stair_nd(norm=1),
        ValueError,
        r"`norm` must be one of 'l1', 'l2', 'linf'; got 1",
    ),
    (
        "StaircaseND",
        _stair_nd(dimension=0),
        ValueError,
        r"`dimension` must be an integer in \[1, 64\]; got 0",
    ),
    (
        "StaircaseND",
        _stair_nd(dimension=2.5),
        ValueError,
        r"`dimension` must be an integer in \[1, 64\]; got 2.5",
    ),
    ("StaircaseND", _stair_nd(sensitivity=1e-300), ValueError, "outside the normal double range"),
    # GradedNoise
    ("GradedNoise", _graded(widths=[0.5, 0.0, 0.5]), ValueError, "`widths` must be positive"),
    ("GradedNoise", _graded(densities=np.ones(5)), ValueError, "whole periods"),
    ("GradedNoise", _graded(privacy=1.0), TypeError, "`privacy` must be optmech.PureDP"),
    # PiecewiseConstantNoise2D
    (
        "PiecewiseConstantNoise2D",
        _grid2d(densities=np.ones((3, 3))),
        ValueError,
        "square with an even side",
    ),
    ("PiecewiseConstantNoise2D", _grid2d(width=0.0), ValueError, "`width`"),
    ("PiecewiseConstantNoise2D", _grid2d(norm="l3"), ValueError, "`norm` must be one of"),
    ("PiecewiseConstantNoise2D", _grid2d(epsilon=-1.0), ValueError, "`epsilon`"),
    ("PiecewiseConstantNoise2D", _grid2d(tails=[("x", 1.0)]), TypeError, "tail shapes must be"),
]


# -- local randomizers: row-stochastic matrices, ε-LDP over every pair of inputs ------------------
@dataclass(frozen=True)
class RandomizerEntry:
    """One local randomizer and what its construction tells about it.

    Attributes
    ----------
    id : str
        Test id.
    make : callable
        Builds the instance.
    epsilon : float
        Its local ε from the construction, ``log(max/min)`` of its worst column as a closed form
        (not read from the code under test).
    teeth : bool
        Whether 300 000 draws per input refute a claim of half that ε.
    """

    id: str
    make: Callable[[], Any]
    epsilon: float
    teeth: bool = True

    @functools.cached_property
    def randomizer(self) -> Any:
        return self.make()


def _rr_matrix(k: int, epsilon: float) -> np.ndarray:
    """k-ary randomized response built here from its definition (Warner (1965))."""
    w = math.exp(epsilon)
    return (np.eye(k) * (w - 1.0) + 1.0) / (w + k - 1.0)


RANDOMIZERS: list[RandomizerEntry] = [
    RandomizerEntry(
        "rr(k=2, eps=1)", lambda: optmech.LocalRandomizer.randomized_response(2, 1.0), 1.0
    ),
    RandomizerEntry(
        "rr(k=5, eps=ln 4, strings)",
        lambda: optmech.LocalRandomizer.randomized_response(5, math.log(4.0), inputs=list("abcde")),
        math.log(4.0),
    ),
    RandomizerEntry(
        "rr(k=3, eps=0.05)",
        lambda: optmech.LocalRandomizer(_rr_matrix(3, 0.05), inputs=[-1.0, 0.0, 1.0]),
        0.05,
    ),
    RandomizerEntry(  # every column's max/min is 6: 0.6/0.1, 0.3/0.05
        "table(3x4)",
        lambda: optmech.LocalRandomizer(
            [[0.6, 0.05, 0.25, 0.1], [0.1, 0.3, 0.3, 0.3], [0.3, 0.15, 0.3, 0.25]],
            outputs=[10, 20, 30, 40],
        ),
        math.log(6.0),
    ),
    # the channels of the frequency oracles, whose ε₀ is their ε (every column is e^ε·t or t)
    RandomizerEntry("OUE(k=3, eps=1)", lambda: optmech.OUE(3, 1.0).randomizer, 1.0),
    RandomizerEntry(
        "HadamardResponse(k=3, eps=1)", lambda: optmech.HadamardResponse(3, 1.0).randomizer, 1.0
    ),
    RandomizerEntry(
        "SubsetSelection(k=4, eps=1, d=2)",
        lambda: optmech.SubsetSelection(4, 1.0, d=2).randomizer,
        1.0,
    ),
    RandomizerEntry("OLH(k=3, eps=1, g=3)", lambda: optmech.OLH(3, 1.0, g=3).randomizer, 1.0),
]

#: Refused ``LocalRandomizer`` arguments: (keywords, error, message).
BAD_RANDOMIZERS: list[tuple[dict[str, Any], type[Exception], str]] = [
    ({"matrix": [[0.5, 0.6], [0.5, 0.5]]}, ValueError, r"`matrix` rows must sum to 1"),
    ({"matrix": [[1.5, -0.5], [0.5, 0.5]]}, ValueError, r"`matrix` must be non-negative"),
    ({"matrix": [[np.nan, 1.0], [0.5, 0.5]]}, ValueError, r"`matrix` must contain only finite"),
    ({"matrix": [0.5, 0.5]}, ValueError, r"`matrix` must be 2-dimensional"),
    ({"matrix": [["a", "b"]]}, TypeError, r"`matrix` must be an array of real numbers"),
    (
        {"matrix": np.eye(2), "inputs": [0, 1, 2]},
        ValueError,
        r"`inputs` must be a 1-D sequence of 2",
    ),
    ({"matrix": np.eye(2), "inputs": [1, 1]}, ValueError, r"`inputs` must be distinct"),
    ({"matrix": np.eye(2), "outputs": [True, False]}, TypeError, r"`outputs` must hold numbers"),
]
