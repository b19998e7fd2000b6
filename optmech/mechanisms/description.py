"""How a noise family describes itself to certification, accounting and interop.

A consumer of a noise never asks *which class* it is. It asks the noise for its description, as
dp_accounting's ``AdditiveNoisePrivacyLoss`` asks a mechanism for its privacy loss and tails:

* `PrivacySource` (``noise.privacy_source()``) — what the privacy of the noise
  rests on: its `kind` (a closed form with its parameters, a density constant
  between known edges, a table on a grid with geometric tails, a 2-D box with tail shapes, a
  mechanism matrix, or a theorem alone), the guarantee it claims, whether its numbers are stored
  (a design: certify them) or follow from its formula, its samplers, and which certifier of
  `optmech.certify` applies;
* `GridDescription` (``noise.grid_description()``) — the numbers of a table:
  the values on a grid of equal cells (masses; on ℤ the pmf), or on a periodic graded grid (the
  densities), a geometric tail on each side (one base period repeated outwards, times ``ratio``
  per period), an atom at the origin, and the exact reach of a shift by Δ in cells.

Certification, accounting and interop read these records; they import no family class, and the
families import none of them.

Examples
--------
>>> import numpy as np
>>> g = GridDescription(np.array([0.5, 0.5]), left_tail=None, right_tail=None, reach=Fraction(1))
>>> g.period, g.cells, g.total
(1, 1, 1.0)
>>> cells_within_reach(0.6000000001, 0.3), cells_within_reach(0.6, 0.3)
(3, 2)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from fractions import Fraction
from typing import Any

import numpy as np

from optmech._deprecation import warn_deprecated
from optmech._floats import FloatArray
from optmech._validation import check_real, check_real_array, check_tail, describe

__all__ = [
    "CUT_MASS",
    "GridDescription",
    "MatrixDescription",
    "PiecewiseDescription",
    "PrivacySource",
    "SourceKind",
    "cells_within_reach",
    "exact_reach",
    "grid_of",
    "source_of",
]


class SourceKind(StrEnum):
    """What the privacy of a noise (or mechanism) rests on, and so which certifier applies."""

    #: Laplace density of scale ``parameters["scale"]``: closed-form profile and divergences.
    LAPLACE = "laplace"
    #: Gaussian density of standard deviation ``parameters["sigma"]``: closed forms.
    GAUSSIAN = "gaussian"
    #: A density constant between known edges (`PiecewiseDescription`).
    PIECEWISE = "piecewise"
    #: A table on a grid with geometric tails (`GridDescription`).
    GRID = "grid"
    #: Densities on the square cells of a box in ℝ², closed by tail shapes.
    GRID_2D = "grid2d"
    #: A mechanism matrix over a neighbour graph (`MatrixDescription`).
    MATRIX = "matrix"
    #: Only its theorem: no independent certifier reads it.
    THEOREM = "theorem"


#: A piecewise description may stop at edges beyond which at most this mass lies (stated in it).
CUT_MASS = 1e-18

#: The certifier (module of `optmech.certify`) that reads each kind.
CERTIFIERS: dict[SourceKind, str] = {
    SourceKind.LAPLACE: "optmech.certify.continuous",
    SourceKind.GAUSSIAN: "optmech.certify.continuous",
    SourceKind.PIECEWISE: "optmech.certify.continuous",
    SourceKind.GRID: "optmech.certify.noise",
    SourceKind.GRID_2D: "optmech.certify.noise2d",
    SourceKind.MATRIX: "optmech.certify.matrix",
    SourceKind.THEOREM: "theorem",
}


# -- the reach of a shift, exactly ------------------------------------------------------------
def cells_within_reach(sensitivity: float, width: float) -> int:
    """Cells a shift by at most ``sensitivity`` can move a point on cells of ``width``.

    $ceil(Δ/h)$ of the *exact* rational $Δ/h$ (both floats are dyadic rationals): the
    integer itself when $Δ$ is an exact multiple of ``h``, otherwise the next integer, however
    close $Δ/h$ is to an integer, since a shift reaching past a cell edge by any positive
    amount lands in the next cell. Pairs of cells this far apart constrain a pure-DP density
    (Geng & Viswanath, 2016).

    Parameters
    ----------
    sensitivity : float
        $Δ$, in (0, inf).
    width : float
        Cell width ``h``, in (0, inf).

    Returns
    -------
    int

    Examples
    --------
    >>> cells_within_reach(1.0, 0.25), cells_within_reach(1.0, 0.3)
    (4, 4)
    >>> cells_within_reach(1.0, 1.0 / 3.0)  # the float 1/3 is below 1/3: 3 + 2e-16 cells
    4
    """
    d = check_real("sensitivity", sensitivity, low=0.0, low_open=True)
    h = check_real("width", width, low=0.0, low_open=True)
    return math.ceil(Fraction(d) / Fraction(h))


def exact_reach(reach: Any = None, sensitivity: Any = None, width: Any = None) -> Fraction:
    """``R`` as an exact rational from ``reach`` (taken as exact) or from ``sensitivity / width``
    (the exact quotient of the two floats), validated.

    Examples
    --------
    >>> exact_reach(2), exact_reach(sensitivity=1.0, width=0.25)
    (Fraction(2, 1), Fraction(4, 1))
    """
    if reach is not None:
        if sensitivity is not None or width is not None:
            raise TypeError(
                "pass either `reach` or both `sensitivity` and `width`, not both; got "
                f"reach={describe(reach)}, sensitivity={describe(sensitivity)}, "
                f"width={describe(width)}."
            )
        if isinstance(reach, Fraction):
            if reach <= 0:
                raise ValueError(f"`reach` must be in (0, inf); got {reach}.")
            return reach
        return Fraction(check_real("reach", reach, low=0.0, low_open=True))
    if sensitivity is None or width is None:
        raise TypeError(
            "`reach`, or both `sensitivity` and `width`, are required (the reach in cells is "
            f"sensitivity / width); got sensitivity={describe(sensitivity)}, "
            f"width={describe(width)}."
        )
    d = check_real("sensitivity", sensitivity, low=0.0, low_open=True)
    h = check_real("width", width, low=0.0, low_open=True)
    return Fraction(d) / Fraction(h)


_KEYS = ("masses", "reach", "left_tail", "right_tail", "atom")


# -- a table on a grid ------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class GridDescription:
    """The numbers of a tabulated noise: values on a grid, geometric tails, atom, exact reach.

    Validated and normalised on construction: a missing tail (``None``) becomes the zero tail
    with the other tail's period.

    Attributes
    ----------
    masses : numpy.ndarray
        Non-negative values of the cells, left to right: cell masses on a grid of equal cells
        (the pmf on ℤ); on a graded grid (``equal_cells=False``) the densities, whose ratios
        within the reach are what ε-DP constrains there.
    left_tail, right_tail : (numpy.ndarray, float)
        ``(base, ratio)``: the values of the period just beyond the grid, each further period
        ``ratio`` (in [0, 1)) times the one before; the two bases have one length, the period.
    atom : float
        Mass of a point mass at the origin, ≥ 0.
    reach : fractions.Fraction or None
        Cells a shift by the sensitivity reaches, exactly (``Δ/h`` as the rational quotient of
        the floats; Δ on ℤ); None when unknown (a bare description, its reach given by the
        caller).
    sensitivity, width : float or None
        Δ and the cell width ``h`` the reach came from (None when it was given in cells).
    discrete : bool
        A pmf on ℤ (whole shifts only) rather than a density on cells.
    equal_cells : bool
        Whether the cells have one width (False on a graded grid: then only the pure ε is read
        from the values).
    """

    masses: FloatArray
    left_tail: Any = None
    right_tail: Any = None
    atom: float = 0.0
    reach: Fraction | None = None
    sensitivity: float | None = None
    width: float | None = None
    discrete: bool = False
    equal_cells: bool = True

    def __post_init__(self) -> None:
        p = check_real_array("masses", self.masses, ndim=1, nonnegative=True)
        atom = check_real("atom", self.atom, low=0.0)
        lb, lr = check_tail("left_tail", self.left_tail)
        rb, rr = check_tail("right_tail", self.right_tail)
        if self.left_tail is None and self.right_tail is not None:
            lb = np.zeros(rb.size)
        if self.right_tail is None and self.left_tail is not None:
            rb = np.zeros(lb.size)
        if lb.size != rb.size:
            raise ValueError(
                "`left_tail` and `right_tail` must have base periods of the same length; got "
                f"{lb.size} and {rb.size}."
            )
        reach = self.reach
        if reach is not None:
            reach = exact_reach(reach, None, None)
        for name, value in (("masses", p), ("atom", atom), ("left_tail", (lb, lr))):
            object.__setattr__(self, name, value)
        object.__setattr__(self, "right_tail", (rb, rr))
        object.__setattr__(self, "reach", reach)

    @classmethod
    def from_arguments(
        cls,
        masses: Any,
        *,
        reach: Any = None,
        sensitivity: Any = None,
        width: Any = None,
        left_tail: Any = None,
        right_tail: Any = None,
        atom: Any = 0.0,
    ) -> GridDescription:
        """The description from the keywords of the grid certifiers: ``reach`` (taken as exact),
        or ``sensitivity`` and ``width`` (the exact rational ``Δ/h``)."""
        exact = exact_reach(reach, sensitivity, width)
        return cls(
            masses,
            left_tail,
            right_tail,
            atom,
            exact,
            None if sensitivity is None else float(sensitivity),
            None if width is None else float(width),
        )

    @classmethod
    def from_mapping(cls, description: Mapping[str, Any]) -> GridDescription:
        """A pmf description on ℤ given as a mapping with ``masses`` and optional
        ``left_tail``, ``right_tail``, ``atom`` and ``reach`` (Δ in points)."""
        if "masses" not in description:
            raise TypeError(
                f"a pmf description needs the key 'masses'; got keys {sorted(description)}."
            )
        reach = description.get("reach")
        return cls(
            description["masses"],
            description.get("left_tail"),
            description.get("right_tail"),
            description.get("atom", 0.0),
            None if reach is None else exact_reach(reach, None, None),
            discrete=True,
        )

    @property
    def period(self) -> int:
        """Cells per tail period."""
        return int(self.left_tail[0].size)

    @property
    def cells(self) -> int:
        """``ceil(reach)``: the cells a shift by Δ can land in (0 when the reach is unknown)."""
        return 0 if self.reach is None else math.ceil(self.reach)

    @property
    def total(self) -> float:
        """The total mass, tails (their geometric series) and atom included (``math.fsum``)."""
        (lb, lr), (rb, rr) = self.left_tail, self.right_tail
        tails = math.fsum(lb) / (1.0 - lr) + math.fsum(rb) / (1.0 - rr)
        return math.fsum(self.masses) + tails + self.atom

    def with_reach(self, cells: int | Fraction) -> GridDescription:
        """The same numbers with the reach given in cells (exact), e.g. a design grid's ``m``."""
        return replace(self, reach=Fraction(cells), sensitivity=None, width=None)

    # -- the mapping of earlier versions (one release) ---------------------------------------
    def _item(self, key: str) -> Any:
        if key == "reach":
            return None if self.reach is None else float(self.reach)
        return getattr(self, key)

    def __getitem__(self, key: str) -> Any:
        if key not in _KEYS:
            raise KeyError(key)
        warn_deprecated(f"grid_description()[{key!r}]", f"grid_description().{key}")
        return self._item(key)

    def get(self, key: str, default: Any = None) -> Any:
        """``desc[key]`` for the keys of the mapping of earlier versions (deprecated)."""
        if key not in _KEYS:
            return default
        warn_deprecated(f"grid_description().get({key!r})", f"grid_description().{key}")
        return self._item(key)

    def keys(self) -> tuple[str, ...]:
        """The keys of the mapping of earlier versions."""
        return _KEYS

    def __iter__(self) -> Iterator[str]:
        return iter(_KEYS)

    def __repr__(self) -> str:
        return (
            f"GridDescription(cells={self.masses.size}, period={self.period}, reach={self.reach},"
            f" atom={self.atom!r}, discrete={self.discrete}, equal_cells={self.equal_cells})"
        )


# -- other descriptions -----------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class PiecewiseDescription:
    """A symmetric density constant between known edges (the staircase, the uniform + atom).

    Attributes
    ----------
    edges : numpy.ndarray
        The edges on ``[0, inf)`` (mirrored for the negative side), increasing, from 0.
    atom : float
        Mass of a point mass at 0.
    tail_mass : float
        Mass beyond the last edge (both sides), at most; its privacy losses are at most
        ``tail_epsilon``.
    tail_epsilon : float
        The largest privacy loss beyond the last edge.
    log_density : callable
        ``x ↦ log f(x)``, vectorised.
    """

    edges: FloatArray
    atom: float
    tail_mass: float
    tail_epsilon: float
    log_density: Callable[[FloatArray], Any] = field(repr=False)


@dataclass(frozen=True, eq=False)
class MatrixDescription:
    """A mechanism matrix ``M[i, r] = P(output r | input i)`` over a neighbour graph.

    Attributes
    ----------
    mechanism : numpy.ndarray
        The matrix, rows summing to 1.
    graph : object
        The neighbour graph over the rows (networkx graph, pairs, or None for the path).
    count_query : bool
        Whether the rows are the counts 0..n and the outputs too, neighbours ``i ~ i + 1``.
    sample : callable
        ``(input, rng) ↦`` one output label, drawn exactly.
    sampled_epsilon : callable
        ``() ↦`` the ε of the law `sample` draws (certified ε plus the rounding of the rows).
    """

    mechanism: FloatArray = field(repr=False)
    graph: Any = field(repr=False)
    count_query: bool
    sample: Callable[..., Any] = field(repr=False)
    sampled_epsilon: Callable[[], float] = field(repr=False)


@dataclass(frozen=True, eq=False)
class PrivacySource:
    """What the privacy of a noise (or mechanism) rests on: its self-description.

    Attributes
    ----------
    kind : SourceKind
        Closed form, piecewise density, grid table, 2-D grid, matrix or theorem.
    family : str
        The family's name (for messages).
    guarantee : object
        The guarantee claimed (`optmech.privacy`).
    sensitivity : float
        Δ the noise is calibrated for (1 for a mechanism matrix).
    dimension : int
        Dimension of the noise (1 on the line and ℤ; a mechanism matrix: 1).
    discrete : bool
        Noise on ℤ.
    tabulated : bool
        Its numbers are stored (a design, or a user's table): a consumer certifies them and
        does not take `guarantee` on trust. False for a closed form, sampled at its own law.
    parameters : mapping
        Closed-form parameters (``scale``, ``sigma``, ``gamma``, ...).
    grid : GridDescription or None
        The table, for ``SourceKind.GRID`` (and the exact periodic form of a
        closed-form family on ℤ).
    pieces : PiecewiseDescription or None
        The edges, for ``SourceKind.PIECEWISE``.
    grid2d : mapping or None
        The keywords of ``optmech.certify.noise2d.noise2d_epsilon``, for ``GRID_2D``.
    matrix : MatrixDescription or None
        For ``SourceKind.MATRIX``.
    sample_exact : callable or None
        ``(size, rng) ↦`` draws by integer arithmetic (lattice noise), if the family has one.
    sample_float : callable or None
        ``(size, rng=...) ↦`` floating-point draws.
    proof : str or None
        For a family known by its theorem alone (``theorem``), the theorem and the argument
        that prove `guarantee` from the formula, with no number in it; None when no such proof
        is stated (then nothing certifies the family).
    """

    kind: SourceKind
    family: str
    guarantee: Any
    sensitivity: float
    dimension: int = 1
    discrete: bool = False
    tabulated: bool = False
    parameters: Mapping[str, Any] = field(default_factory=dict)
    grid: GridDescription | None = None
    pieces: PiecewiseDescription | None = None
    grid2d: Mapping[str, Any] | None = field(default=None, repr=False)
    matrix: MatrixDescription | None = None
    sample_exact: Callable[..., Any] | None = field(default=None, repr=False)
    sample_float: Callable[..., Any] | None = field(default=None, repr=False)
    proof: str | None = None

    @property
    def certifier(self) -> str:
        """The module of `optmech.certify` that certifies this source (``"theorem"``: none)."""
        return CERTIFIERS[self.kind]


def source_of(obj: Any) -> PrivacySource | None:
    """``obj.privacy_source()`` of a noise or mechanism result that describes itself, else None.

    Examples
    --------
    >>> source_of(42) is None
    True
    """
    method = getattr(obj, "privacy_source", None)
    if not callable(method) or isinstance(obj, type):
        return None
    found = method()
    return found if isinstance(found, PrivacySource) else None


def grid_of(obj: Any) -> GridDescription | None:
    """The grid description of ``obj``: a `GridDescription` itself, a pmf
    description mapping (``masses`` and tails), or a noise whose source has a grid; else None.
    """
    if isinstance(obj, GridDescription):
        return obj
    if isinstance(obj, Mapping):
        return GridDescription.from_mapping(obj)
    source = source_of(obj)
    return None if source is None else source.grid
