"""The designed noise: a tabulated noise family plus the record of the LP behind it.

`optmech.design_noise` returns a `DesignedNoise`: a `PiecewiseConstantNoise` (density on a
uniform grid), `GradedNoise` (density on a graded Δ-periodic grid) or `LatticeNoise` (pmf on ℤ)
— so ``pdf``/``pmf``, ``cdf``, ``ppf``, ``rvs`` and ``expected_cost`` work as for any optmech
noise — built by its own constructor, that also holds a frozen `DesignRecord`: the validated
`AdditiveSpec`, the `Provenance` of the solve (solver, status, every attempt, timings, the
violation of the solver's point, the repair, and the certified interval ``[lower_bound, value]``
that contains the LP's optimum), and the certified ε and δ. The attributes users read
(``value``, ``lower_bound``, ``certified_epsilon``, ``status``, ``solver``, ...) are read-only
properties over that record.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Self, overload

from optmech._deprecation import warn_deprecated
from optmech._floats import FloatArray
from optmech.lp.additive.spec import SpecViews
from optmech.mechanisms.base import NoiseDistribution
from optmech.mechanisms.graded import GradedNoise
from optmech.mechanisms.piecewise import LatticeNoise, PiecewiseConstantNoise
from optmech.privacy import ZCDP, ApproxDP, GaussianDP, Privacy, PureDP
from optmech.provenance import Provenance, ProvenanceFields, RepairKind
from optmech.results import RecordViews, within

if TYPE_CHECKING:
    from typing_extensions import TypeVar

    from optmech.lp.additive.spec import AdditiveSpec

    #: The guarantee a design was asked for; a bare ``DesignedNoise`` is a design for any.
    G = TypeVar("G", bound=Privacy, covariant=True, default=Privacy)
else:  # type parameters with defaults (PEP 696) are for type checkers only before Python 3.13
    from typing import TypeVar

    G = TypeVar("G", covariant=True)
#: The guarantee for which a certified number is always there, and the number's type.
_For = TypeVar("_For", bound=Privacy)
_V = TypeVar("_V")

__all__ = [
    "BeyondCertificate",
    "DesignRecord",
    "DesignedGradedNoise",
    "DesignedLatticeNoise",
    "DesignedNoise",
    "DesignedPiecewiseNoise",
    "RecordViews",
    "designed_class",
]


@dataclass(frozen=True)
class BeyondCertificate:
    """What is certified about a design under a guarantee beyond (ε, δ), from its numbers alone
    (`optmech.certify.profiles`, over every shift ``0 < |d| ≤ Δ`` and both directions).

    Attributes
    ----------
    rho : float or None
        zCDP: the certified ρ, an upper bound of ``sup_(α>1) D_α/α`` over the continuum.
    mu : float or None
        GDP: a μ for which ``δ(ε) ≤ δ_μ(ε)`` is certified at every ε ≥ 0.
    profile : tuple of (float, float)
        Profile: the certified ``(ε_j, δ(ε_j))``; GDP: the profile at eight ε from 0 to where
        ``δ_μ`` is 1e-10 (a summary: μ itself is certified at every ε).
    renyi : tuple of (float, float)
        Rényi DP: the certified ``(α, D_α)`` at the requested orders; zCDP: at the cut orders.
    gaussian_cost : float or None
        GDP: the expected cost of the Gaussian ``N(0, Δ²/μ²)`` itself, the textbook μ-GDP
        mechanism (Dong, Roth & Su 2022, Theorem 2.7). A design's value above it means that
        this grid cannot reach the Gaussian (the design's ``worse_than_gaussian``).
    """

    rho: float | None = None
    mu: float | None = None
    profile: tuple[tuple[float, float], ...] = ()
    renyi: tuple[tuple[float, float], ...] = ()
    gaussian_cost: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON."""
        return {
            "certified_rho": self.rho,
            "certified_mu": self.mu,
            "certified_profile": [list(p) for p in self.profile],
            "certified_renyi": [list(p) for p in self.renyi],
            "gaussian_cost": self.gaussian_cost,
        }


#: The fields of `DesignRecord.to_dict` after the privacy and the cost, in order.
_DICT_FIELDS = """sensitivity grid_kind resolution periods integer symmetric monotone reduced window
lp_objective source certified_epsilon certified_delta raw_certified_epsilon raw_certified_delta
max_violation repair_cost repair_detail""".split()


@dataclass(frozen=True)
class DesignRecord(SpecViews, ProvenanceFields):
    """What was designed, how it was solved, and what is certified about it.

    Attributes
    ----------
    spec : AdditiveSpec
        The validated specification (defaults resolved).
    provenance : Provenance
        Solver, status, attempts, timings, violations, repair and the certified interval
        ``[lower_bound, value]`` of the LP's optimum.
    certified_epsilon, certified_delta : float
        Certified privacy of the returned noise (ε: pure ε, ``inf`` for finite support or an
        atom; δ: at the requested ε).
    raw_certified_epsilon : float
        Certified pure ε of the solver's point (before any repair).
    raw_certified_delta : float or None
        Its δ at the requested ε ((ε, δ) designs; None for ε-DP).
    cells_per_period : int
        ``m``: cells (points) per Δ of the grid solved.
    window : str
        Form of the ε-DP rows: ``"pairs"``, ``"sparse-table"``, ``"blocks"``, ``"monotone"``,
        or ``"none"`` for (ε, δ).
    lp_objective : float
        The solver's reported optimum, in cost units (not trusted: see ``value``).
    source : str
        Which feasible point was returned: ``"solver"`` (its point, repaired if needed) or
        ``"reference"`` (the best staircase on a graded grid, Geng & Viswanath 2016, Thm. 3,
        when it costs less than the solver's point — it is a point of the same LP; for GDP
        the Gaussian on the grid, or the repair's reference when mixed in with weight 1), or
        ``"pure"`` (an (ε, δ) request answered by the ε-DP design, which is (ε, δ)-DP for every
        δ, when it costs less: `optmech.lp.additive.approx`).
    beyond : BeyondCertificate or None
        The certificate of a guarantee beyond (ε, δ) (None for ε-DP and (ε, δ) designs).
    """

    spec: AdditiveSpec
    provenance: Provenance
    certified_epsilon: float
    certified_delta: float
    raw_certified_epsilon: float
    raw_certified_delta: float | None
    cells_per_period: int
    window: str
    lp_objective: float
    source: str = "solver"
    beyond: BeyondCertificate | None = None

    # -- the specification --------------------------------------------------------------------
    @property
    def sensitivity(self) -> float:
        """Δ."""
        return self.spec.sensitivity

    @property
    def resolution(self) -> int:
        """Cells per Δ of the grid solved (``m``)."""
        return self.cells_per_period

    @property
    def periods(self) -> int:
        """Periods of Δ on each side."""
        assert self.spec.periods is not None
        return self.spec.periods

    @property
    def integer(self) -> bool:
        """Noise on ℤ."""
        return self.spec.integer

    @property
    def grid_kind(self) -> str:
        """``"uniform"``, ``"graded"`` or ``"integer"`` (the grid itself, as an array, is the
        noise's `grid`)."""
        return str(self.spec.grid)

    @property
    def grid(self) -> str:
        """Deprecated name of `grid_kind` (``grid`` is the array of cell edges or
        points on the noise itself)."""
        warn_deprecated("`DesignRecord.grid`", "`DesignRecord.grid_kind`")
        return self.grid_kind

    # -- the solve ------------------------------------------------------------------------------
    @property
    def repair_detail(self) -> str:
        """E.g. the mixture weight."""
        rep = self.provenance.repair
        return f"lambda={rep.weight:.3g}" if rep.kind == RepairKind.MIXTURE else ""

    def to_dict(self) -> dict[str, Any]:
        """Plain dict for JSON: the specification and the certified privacy, and the provenance
        nested under ``"provenance"``."""
        out: dict[str, Any] = {"privacy": str(self.privacy), "cost": repr(self.cost)}
        out.update((name, getattr(self, name)) for name in _DICT_FIELDS)
        if self.beyond is not None:
            out.update(self.beyond.to_dict())
            cost = self.beyond.gaussian_cost  # GDP: whether this grid falls short of N(0, Δ²/μ²)
            out["worse_than_gaussian"] = None if cost is None else bool(self.value > cost)
        out["provenance"] = self.provenance.to_dict()
        return {k: _finite_or_str(v) for k, v in out.items()}

    def flat_dict(self) -> dict[str, Any]:
        """The dict of earlier versions' ``summary()``: the fields of `to_dict` with
        the provenance's merged in, ``grid`` for the grid's kind and ``repair`` its kind."""
        out = self.to_dict()
        prov = out.pop("provenance")
        out["grid"] = out.pop("grid_kind")
        out.update(prov)
        out["repair"] = str(self.repair.kind)
        return out


def _shown(value: Any) -> Any:
    """A certified guarantee for the display: a number as it is, a curve as its pairs at the
    display's digits."""
    if isinstance(value, tuple):
        from optmech._display import short

        return ", ".join(f"({short(float(a))}, {short(float(b))})" for a, b in value)
    return value


def privacy_met(privacy: Any, noise: Any, rtol: float) -> bool:
    """Whether the certified numbers of ``noise`` (``certified_epsilon``, ``_delta``, ``_rho``,
    ``_mu``, ``_profile``, ``_renyi``) meet ``privacy`` (the request), each up to ``1 + rtol``
    (`within`)."""
    from optmech.privacy import PrivacyProfile, RenyiDP

    scalars = {PureDP: "epsilon", ApproxDP: "delta", ZCDP: "rho", GaussianDP: "mu"}
    for kind, name in scalars.items():
        if isinstance(privacy, kind):
            return within(getattr(noise, f"certified_{name}"), getattr(privacy, name), rtol)
    if isinstance(privacy, PrivacyProfile):
        asked, pairs = zip(privacy.epsilons, privacy.deltas, strict=True), noise.certified_profile
    elif isinstance(privacy, RenyiDP):
        asked, pairs = zip(privacy.orders, privacy.epsilons, strict=True), noise.certified_renyi
    else:
        return False
    bound = dict(asked)
    return bool(pairs) and all(within(d, bound.get(x, math.inf), rtol) for x, d in pairs)


def _finite_or_str(value: Any) -> Any:
    return str(value) if isinstance(value, float) and not math.isfinite(value) else value


class _Certified(Generic[_For, _V]):
    """A certified number of the designs for one kind of guarantee (``_For``), None for the
    others: type checkers read it as ``_V`` on a ``DesignedNoise[_For]`` (e.g. ``certified_rho``
    is a float on a design for ``ZCDP``) and as ``_V | None`` on any other design."""

    def __init__(self, read: Callable[[Any], _V | None]) -> None:
        self._read = read

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> Self: ...
    @overload
    def __get__(self, obj: DesignedNoise[_For], owner: type | None = None) -> _V: ...
    @overload
    def __get__(self, obj: DesignedNoise[Privacy], owner: type | None = None) -> _V | None: ...
    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            return self
        return None if obj._record.beyond is None else self._read(obj)


class DesignedNoise(RecordViews, NoiseDistribution, Generic[G], abstract=True):
    """Mixin of the designed families: the design record on top of a tabulated noise (a
    `NoiseDistribution`: ``cdf``, ``ppf``, ``rvs``,
    ``expected_cost``, ...), generic in the guarantee ``G`` it was designed for.

    Examples
    --------
    >>> import optmech
    >>> noise = optmech.design_noise(optmech.PureDP(1.0), sensitivity=1.0, cost="abs",
    ...                              resolution=4, periods=2, symmetric=True)
    >>> isinstance(noise, optmech.DesignedNoise), noise.record.spec.resolution
    (True, 4)
    >>> bool(noise.lower_bound <= noise.value), noise.provenance.within_accuracy
    (True, True)
    >>> round(noise.expected_cost("abs"), 6) == round(noise.value, 6)
    True
    """

    _record: DesignRecord

    if TYPE_CHECKING:  # provided by the tabulated family the mixin is combined with
        sensitivity: float

        @property
        def atom(self) -> float: ...

    def __init__(self, *, record: DesignRecord, **noise: Any) -> None:
        super().__init__(**noise)
        self._record = record

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._describe()})"

    def _with_record(self, record: DesignRecord) -> DesignedNoise:
        """The same noise with another record (a copy; the noise's numbers are shared)."""
        out = copy.copy(self)
        out._record = record
        return out

    @property
    def certified_delta(self) -> float:
        """Certified δ at the requested ε (beyond (ε, δ): at `certified_epsilon`)."""
        return self._record.certified_delta

    certified_rho: _Certified[ZCDP, float] = _Certified(lambda self: self._record.beyond.rho)
    """zCDP designs: the certified ρ over every order α > 1 (None otherwise)."""
    certified_mu: _Certified[GaussianDP, float] = _Certified(lambda self: self._record.beyond.mu)
    """GDP designs: the certified μ over every ε ≥ 0 (None otherwise)."""

    @property
    def certified_profile(self) -> tuple[tuple[float, float], ...]:
        """Profile and GDP designs: the certified $(ε, δ(ε))$ at the profile's points (GDP:
        eight ε from 0 to where $δ_μ$ is 1e-10)."""
        return () if self._record.beyond is None else self._record.beyond.profile

    @property
    def certified_renyi(self) -> tuple[tuple[float, float], ...]:
        """Rényi DP and zCDP designs: the certified $(α, D_α)$ at the orders / cuts."""
        return () if self._record.beyond is None else self._record.beyond.renyi

    gaussian_cost: _Certified[GaussianDP, float] = _Certified(
        lambda self: self._record.beyond.gaussian_cost
    )
    """GDP designs: the expected cost of the Gaussian $N(0, Δ²/μ²)$ itself (None otherwise)."""
    worse_than_gaussian: _Certified[GaussianDP, bool] = _Certified(
        lambda self: None if self.gaussian_cost is None else bool(self.value > self.gaussian_cost)
    )
    """GDP designs: whether the returned noise costs more than the Gaussian $N(0, Δ²/μ²)$
    (`gaussian_cost`) — on this grid no noise reaches it; a finer ``resolution`` comes closer,
    or use the Gaussian mechanism itself. None for other guarantees."""

    @property
    def grid(self) -> FloatArray:
        """Cell edges (density) or integer points (pmf) of the design."""
        return self.points if self.discrete else self.edges  # type: ignore[attr-defined]

    def _fields(self) -> dict[str, Any]:
        families = (PiecewiseConstantNoise, GradedNoise, LatticeNoise)
        family = next(c for c in type(self).__mro__ if c in families)
        return {**super()._fields(), "family": family.__name__, "atom": self.atom}

    def certified_guarantee(
        self,
    ) -> list[tuple[str, str, float | tuple[tuple[float, float], ...] | None]]:
        """``(attribute, label, value)`` of the certified guarantee, headline first: for
        (ε, δ) the certified δ at the requested ε, then the pure-ε bound (δ = 0) labelled as
        what it is (often ``inf``: a δ > 0 design need not be ε-DP for any ε); beyond (ε, δ)
        the certified ρ, μ, profile or Rényi curve, then the pure-ε bound."""
        rec = self._record
        if rec.beyond is not None:
            found = [
                ("certified_rho", "certified ρ (zCDP)", rec.beyond.rho),
                ("certified_mu", "certified μ (GDP)", rec.beyond.mu),
                ("certified_profile", "certified (ε, δ(ε))", rec.beyond.profile or None),
                ("certified_renyi", "certified (α, D_α)", rec.beyond.renyi or None),
            ]
            headline = [row for row in found if row[2] is not None][:1]
            return [*headline, ("certified_epsilon", "pure-ε bound (δ = 0)", rec.certified_epsilon)]
        privacy = rec.privacy
        if isinstance(privacy, PureDP):
            return [("certified_epsilon", "certified ε", rec.certified_epsilon)]
        assert isinstance(privacy, ApproxDP)  # beyond (ε, δ) has its certificate, above
        return [
            ("certified_delta", f"certified δ at ε = {privacy.epsilon:g}", rec.certified_delta),
            ("certified_epsilon", "pure-ε bound (δ = 0)", rec.certified_epsilon),
        ]

    _model = "designed additive noise (1-D)"

    def _privacy_met(self, rtol: float) -> bool:
        """ε-DP ``certified_epsilon ≤ ε``, (ε, δ) ``certified_delta ≤ δ``, zCDP
        ``certified_rho ≤ ρ``, GDP ``certified_mu ≤ μ``, a profile or Rényi curve at every
        point (each up to ``1 + rtol``)."""
        return privacy_met(self._record.privacy, self, rtol)

    def _privacy_requested(self) -> str | None:
        return f"{self._record.privacy}, Δ = {self.sensitivity:g}"

    def _privacy_rows(self) -> list[tuple[str, Any]]:
        return [(label, _shown(value)) for _, label, value in self.certified_guarantee()]

    def _own_rows(self) -> list[tuple[str, Any]]:
        rec = self._record
        return [
            ("cost", rec.cost.name),
            ("grid", f"{rec.grid_kind}, {rec.cells_per_period} cells per Δ, {rec.periods} periods"),
        ]

    def plot(
        self,
        ax: Any = None,
        *,
        references: Any = "closed-form",
        span: float | None = None,
        label: str | None = None,
        title: str | None = None,
        reference: bool | None = None,
    ) -> Any:
        """Draw the designed density (or pmf) beside named ``references``; returns the Axes.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw (default: a new figure).
        references : "closed-form" or sequence of (str, NoiseDistribution)
            By default the closed-form optimum for the design's guarantee and cost, or its
            baselines where no optimum is known
            (`optmech.mechanisms.references.closed_form_reference`; those of the design's kind
            only: pmfs beside a pmf, densities beside a density); else the named noises to draw,
            as for every family (``()`` for none).
        span, label, title
            As for every family (`optmech.plotting.plot_noise`);
            the default label is "designed (LP)", the default title names the guarantee, cost
            and value.
        reference : bool, optional
            Deprecated: ``reference=False`` is ``references=()``.
        """
        from optmech.plotting import plot_noise, privacy_title

        if reference is not None:
            warn_deprecated("`plot(reference=...)`", "`plot(references=...)` (`()` for none)")
            if not reference:
                references = ()
        if isinstance(references, str) and references != "closed-form":
            raise ValueError(
                "`references` must be 'closed-form' or a sequence of (name, noise) pairs; got "
                f"{references!r}."
            )
        refs = self._closed_form_references() if isinstance(references, str) else references
        ax = plot_noise(self, ax, references=refs, span=span, label=label or "designed (LP)")
        ax.set_title(
            title
            or f"{privacy_title(self._record.privacy, self.sensitivity)}, "
            f"cost {self._record.cost.name}, value {self.value:.6g}"
        )
        return ax

    def _closed_form_references(self) -> list[tuple[str, Any]]:
        """The closed-form optimum (or baselines) of the design's guarantee and cost, of the
        design's kind (a pmf beside pmfs, a density beside densities); none for guarantees
        beyond (ε, δ)."""
        from optmech.mechanisms.references import closed_form_reference

        rec = self._record
        if rec.beyond is not None:
            return []
        privacy = rec.privacy
        assert isinstance(privacy, PureDP | ApproxDP)  # no beyond (ε, δ) certificate
        found = closed_form_reference(privacy, rec.sensitivity, rec.cost, integer=rec.integer)
        refs = ([(found.label, found.optimum)] if found.optimum is not None else []) + list(
            found.baselines
        )
        # An (ε, δ) lattice design's continuous baselines are left out.
        lattice = hasattr(self, "pmf")
        return [(name, ref) for name, ref in refs if hasattr(ref, "pmf") == lattice]

    def _describe(self) -> str:
        rec = self._record
        return (
            f"{rec.privacy}, cost={rec.cost!r}, value={self.value:.9g}, "
            f"lower_bound={self.lower_bound:.9g}, grid={rec.grid_kind}, "
            f"resolution={rec.cells_per_period}, periods={rec.periods}, "
            f"certified_epsilon={self.certified_epsilon:.9g}, "
            f"certified_delta={self.certified_delta:.3g}, "
            + "".join(
                f"certified_{name}={val:.9g}, "
                for name, val in (("rho", self.certified_rho), ("mu", self.certified_mu))
                if val is not None
            )
            + f"solver={self.solver}, status={self.status}"
        )


class DesignedPiecewiseNoise(DesignedNoise[G], PiecewiseConstantNoise):
    """A designed density on a uniform grid (`PiecewiseConstantNoise` + a record).

    Parameters
    ----------
    record : DesignRecord
        The design record.
    **noise
        The keywords of `PiecewiseConstantNoise`.

    Examples
    --------
    >>> import optmech
    >>> noise = optmech.design_noise(optmech.PureDP(1.0), sensitivity=1.0, cost="abs",
    ...                              resolution=4, periods=2, symmetric=True)
    >>> type(noise).__name__, noise.width, bool(noise.certified_epsilon <= 1.0 + 1e-9)
    ('DesignedPiecewiseNoise', 0.25, True)
    >>> noise.rvs(3, rng=0).shape
    (3,)
    """


class DesignedGradedNoise(DesignedNoise[G], GradedNoise):
    """A designed density on a graded Δ-periodic grid (`GradedNoise` + a record).

    Parameters
    ----------
    record : DesignRecord
        The design record.
    **noise
        The keywords of `GradedNoise`.

    Examples
    --------
    >>> import optmech
    >>> noise = optmech.design_noise(optmech.PureDP(8.0), sensitivity=1.0, cost="abs",
    ...                              grid="graded", periods=2)
    >>> type(noise).__name__, bool(noise.certified_epsilon <= 8.0 * (1 + 1e-9))
    ('DesignedGradedNoise', True)
    """


class DesignedLatticeNoise(DesignedNoise[G], LatticeNoise):
    """A designed pmf on ℤ (`LatticeNoise` + a record).

    Parameters
    ----------
    record : DesignRecord
        The design record.
    **noise
        The keywords of `LatticeNoise`.

    Examples
    --------
    >>> import optmech
    >>> noise = optmech.design_noise(optmech.PureDP(1.0), sensitivity=1, cost="abs", integer=True)
    >>> type(noise).__name__, noise.discrete
    ('DesignedLatticeNoise', True)
    >>> best = optmech.DiscreteStaircase.optimal(epsilon=1.0, sensitivity=1, cost="abs")
    >>> bool(noise.lower_bound <= best.expected_cost("abs") * (1 + 1e-9))
    True
    """


def designed_class(family: type) -> type[DesignedNoise]:
    """The designed class of a noise family."""
    table: dict[type, type[DesignedNoise]] = {
        PiecewiseConstantNoise: DesignedPiecewiseNoise,
        GradedNoise: DesignedGradedNoise,
        LatticeNoise: DesignedLatticeNoise,
    }
    return table[family]
