"""Results of the user LPs: a mechanism with its `Provenance`.

Each result holds one frozen provenance record (solver, status, every attempt, timings, the
repair and the certified interval ``[lower_bound, value]`` that contains the LP's optimum);
the flat attributes users read (``value``, ``lower_bound``, ``solver``, ``status``,
``solve_time``, ``repair_lambda``, ...) are read-only views of it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Self

import numpy as np

from optmech._deprecation import warn_deprecated
from optmech._floats import FloatArray, IntArray
from optmech.graphs import is_path_graph
from optmech.lp.engine.record import Solved
from optmech.lp.matrix.setting import UserSetting
from optmech.lp.solve import SolveInfo
from optmech.mechanisms.description import MatrixDescription, PrivacySource, SourceKind
from optmech.privacy import PureDP
from optmech.provenance import Provenance
from optmech.results import MechanismResult

__all__ = ["CommonMechanismResult", "UserMechanism", "UserObjective"]


class UserObjective(StrEnum):
    """Which user LP a result solves."""

    #: ``min Σ_i p_i Σ_r x[i, r] l(i, r)`` (Ghosh, Roughgarden & Sundararajan (2012)).
    BAYESIAN = "bayesian"
    #: ``min max_{i ∈ S} Σ_r x[i, r] l(i, r)`` (Gupte & Sundararajan (2010)).
    MINIMAX = "minimax"
    #: ``min max_u value_u / optimum_u`` over several users (Brenner & Nissim (2014)).
    COMMON = "common"


def release(mechanism: FloatArray, row: int, labels: Any, size: Any, rng: Any) -> Any:
    """Draws of ``labels`` (the columns' labels) from row ``row`` of ``mechanism`` as stored, by
    the exact sampler (`RationalTable`):
    one label for ``size=None``, else an array of shape ``size``."""
    from optmech.mechanisms.exact_sampling import RationalTable, draw_many

    index = np.asarray(draw_many(RationalTable(mechanism[row]).draw, size, rng))
    out = np.asarray(labels)[index]
    return out.item() if size is None and out.ndim == 0 else out


def input_index(true_value: Any, rows: int) -> int:
    """``true_value`` as a row index ``0..rows − 1`` (ValueError naming it otherwise)."""
    index = isinstance(true_value, int | np.integer) and not isinstance(true_value, bool)
    if not index or not 0 <= int(true_value) < rows:
        raise ValueError(
            f"`true_value` must be an input index in 0..{rows - 1}; got {true_value!r}."
        )
    return int(true_value)


class _Provenanced(MechanismResult, abstract=True):
    """What the user LPs' results share besides the
    `MechanismResult` interface: the weight of the uniform
    mechanism mixed in."""

    @property
    def repair_lambda(self) -> float:
        """Weight of the uniform mechanism mixed in (0 if none)."""
        return self.provenance.repair.weight


@dataclass(frozen=True, repr=False)
class UserMechanism(_Provenanced):
    """An optimal mechanism for one user, with its provenance.

    Attributes
    ----------
    mechanism : ndarray, shape (N, m)
        Certified ε-DP mechanism, rows = inputs (graph node order), columns = outputs.
    certified_epsilon : float
        Achieved ε of `mechanism`, computed independently (≤ `epsilon`).
    epsilon : float
        Requested ε.
    objective : UserObjective
        ``"bayesian"`` or ``"minimax"``.
    raw_mechanism : ndarray
        The solver's point clipped to $x ≥ 0$ and row-normalised, before the privacy repair
        (a vertex when solved with ``vertex=True``): for constraint matrices and remap tests.
    raw_value : float
        The objective at `raw_mechanism`.
    setting : UserSetting
        Graph, outputs and loss matrix.
    provenance : Provenance
        Solver, status, attempts, timings, sizes of the LP actually solved (the orbit LP when
        `symmetry_reduced`), repair and the certified interval ``[lower_bound, value]``;
        `value`, `lower_bound`, `solver`, `status`, `solve_time`, `repair`,
        `repair_lambda`, `repair_cost`, `max_violation` and `gap` read it.
    prior : ndarray or None
        Bayesian prior.
    side_information : ndarray of int or None
        Minimax: rows of S.
    symmetry_reduced : bool
        Whether the LP was solved over the orbits of the mirror symmetry; the mechanism is the
        full matrix either way.

    Examples
    --------
    >>> import optmech
    >>> user = optmech.bayesian_mechanism([0.25, 0.25, 0.25, 0.25], "abs", 1.0)
    >>> user.mechanism.shape, bool(user.certified_epsilon <= 1.0 + 1e-9)
    ((4, 4), True)
    >>> geometric = optmech.geometric_bayes([0.25, 0.25, 0.25, 0.25], "abs", 1.0)
    >>> bool(abs(user.value - geometric.value) <= 1e-6)  # GRS: the geometric is universal
    True
    """

    mechanism: FloatArray
    certified_epsilon: float
    epsilon: float
    objective: UserObjective
    raw_mechanism: FloatArray
    raw_value: float
    setting: UserSetting
    provenance: Provenance
    prior: FloatArray | None = None
    side_information: IntArray | None = None
    symmetry_reduced: bool = False
    _solve_info: SolveInfo | None = field(default=None, repr=False, compare=False)

    @property
    def info(self) -> SolveInfo | None:
        """Deprecated: the successful solve's record; everything in it is in
        `provenance` (sizes, timings, attempts)."""
        warn_deprecated("`UserMechanism.info`", "`UserMechanism.provenance`")
        return self._solve_info

    @property
    def loss(self) -> FloatArray:
        """The loss matrix ``L[i, r]``."""
        return self.setting.loss

    @property
    def outputs(self) -> FloatArray:
        """Labels of the columns."""
        return self.setting.outputs

    def rvs(self, true_value: Any, size: Any = None, rng: Any = None) -> Any:
        """Release answers for the input ``true_value``: draws of the output labels from its
        row of `mechanism`, exactly as stored (integer arithmetic on the floats'
        dyadic values: `RationalTable`).

        The row sampled is the stored one divided by its exact sum (1 up to float rounding),
        so the sampled mechanism's ε exceeds `certified_epsilon` by at most
        ``max |log(T_i / T_j)|`` over neighbouring rows' exact sums — about 1e-16.

        Parameters
        ----------
        true_value : int, float or array_like
            The true query answer: one of the inputs (the graph's node values).
        size, rng
            As in `sample_exact`: the
            shape of the releases (None for one) and the source of random bits.

        Returns
        -------
        scalar or numpy.ndarray
            Output labels (ints for a count query).
        """
        values = np.asarray(self.setting.values, dtype=np.float64)
        target = np.asarray(true_value, dtype=np.float64)
        match = np.all(values.reshape(values.shape[0], -1) == target.reshape(1, -1), axis=1)
        if target.size != values[0].size or not np.any(match):
            shown = values.tolist() if values.shape[0] <= 12 else f"{values.shape[0]} inputs"
            raise ValueError(f"`true_value` must be one of the inputs {shown}; got {true_value!r}.")
        labels = np.asarray(self.outputs)
        if np.all(labels == np.round(labels)):
            labels = labels.astype(np.int64)
        return release(self.mechanism, int(np.argmax(match)), labels, size, rng)

    def sample(self, true_value: Any, size: Any = None, rng: Any = None) -> Any:
        """Deprecated name of `rvs` (one sampling
        verb across results and noise families)."""
        warn_deprecated(f"`{type(self).__name__}.sample(...)`", "`.rvs(...)`")
        return self.rvs(true_value, size, rng)

    def sampled_epsilon(self) -> float:
        """The ε of the mechanism `rvs` draws
        from: `certified_epsilon` plus ``log(max_i T_i / min_i T_i)`` over the rows' exact sums
        ``T_i`` (each row is divided by its own sum), rounded up.

        The ratio of two rows' sampled probabilities is the stored ratio times ``T_j/T_i``, so
        this bounds every neighbouring pair; the excess is about 1e-16.
        """
        from fractions import Fraction

        totals = [sum(map(Fraction, row.tolist()), Fraction(0)) for row in self.mechanism]
        excess = float(max(totals) / min(totals) - 1)  # log(1 + x) ≤ x
        return math.nextafter(
            float(self.certified_epsilon) + math.nextafter(excess, math.inf), math.inf
        )

    def privacy_source(self) -> PrivacySource:
        """This result described as a mechanism matrix over its graph (kind ``matrix``), as
        certification and `optmech.interop` read it."""
        matrix = MatrixDescription(
            self.mechanism,
            self.setting.graph,
            is_path_graph(self.setting.graph) and self.setting.is_count_query,
            lambda x, rng: self.rvs(x, rng=rng),
            self.sampled_epsilon,
        )
        return PrivacySource(
            kind=SourceKind.MATRIX,
            family=type(self).__name__,
            guarantee=PureDP(self.epsilon),
            sensitivity=1.0,
            discrete=True,
            tabulated=True,
            matrix=matrix,
        )

    def to_opendp(self) -> Any:
        """This count mechanism as an OpenDP measurement (`optmech.interop.opendp.to_opendp`:
        exact sampling of the rows, privacy map `sampled_epsilon`)."""
        from optmech.interop.opendp import to_opendp

        return to_opendp(self)

    _dict_fields: ClassVar[tuple[str, ...]] = (
        "objective",
        "epsilon",
        "certified_epsilon",
        "inputs",
        "outputs",
        "loss",
        "mechanism",
        "raw_value",
        "prior",
        "side_information",
        "symmetry_reduced",
    )

    @property
    def inputs(self) -> FloatArray:
        """Labels of the rows (the graph's node values)."""
        return self.setting.values

    @property
    def model(self) -> str:
        """``"Bayesian user"`` or ``"minimax user"``."""
        return "Bayesian user" if self.objective == UserObjective.BAYESIAN else "minimax user"

    def _plot_title(self) -> str:
        return f"{self.model}, ε = {self.epsilon:g}, value {self.value:.6g}"

    def _own_rows(self) -> list[tuple[str, Any]]:
        n_in, n_out = self.mechanism.shape
        return [("size", f"{n_in} inputs × {n_out} outputs")]

    def __repr__(self) -> str:
        n_in, n_out = self.mechanism.shape
        return (
            f"{type(self).__name__}({self.objective}, {n_in}x{n_out}, value={self.value:.10g}, "
            f"lower_bound={self.lower_bound:.10g}, epsilon={self.epsilon:g}, "
            f"certified_epsilon={self.certified_epsilon:.10g}, solver={self.solver}, "
            f"{self._repr_tail()})"
        )

    def _repr_tail(self) -> str:
        """The end of the repr, after the solver (a subclass names what it adds)."""
        reduced = ", symmetry_reduced" if self.symmetry_reduced else ""
        return f"status={self.status}, solve_time={self.solve_time:.3g}s{reduced}"

    @classmethod
    def _of(
        cls,
        solved: Solved,
        setting: UserSetting,
        epsilon: float,
        objective: UserObjective,
        **extra: Any,
    ) -> Self:
        """The result of a certified solve: what ``solved`` holds, and ``extra`` fields."""
        return cls(
            mechanism=solved.mechanism,
            certified_epsilon=solved.certified_epsilon,
            epsilon=epsilon,
            objective=objective,
            raw_mechanism=solved.raw_mechanism,
            raw_value=solved.raw_value,
            setting=setting,
            provenance=solved.provenance,
            _solve_info=solved.info,
            **extra,
        )


@dataclass(frozen=True, repr=False)
class CommonMechanismResult(_Provenanced):
    """The best single mechanism for several users at once (Brenner & Nissim (2014)).

    Attributes
    ----------
    lp_ratio : float
        The ratio at the solver's point (clipped, normalised), before the privacy repair.
    values : ndarray
        Each user's expected loss from the joint mechanism (through its projection).
    optima : ndarray
        Each user's own optimum.
    mechanism : ndarray, shape (N, Π m_u)
        Joint mechanism; column ``(r_1, …, r_k)`` in C order over the users' output sets.
    certified_epsilon : float
        Achieved ε of the joint mechanism.
    epsilon : float or None
        Requested ε.
    provenance : Provenance
        Its `value` is `ratio`; its lower bound is *rigorous*: no mechanism does
        better than ``lower_bound`` for all users at once (with the users' optima as given,
        which can only overestimate them), so ``lower_bound > 1`` proves that no single
        mechanism is optimal for every user.
    """

    lp_ratio: float
    values: FloatArray
    optima: FloatArray
    mechanism: FloatArray = field(repr=False)
    certified_epsilon: float
    provenance: Provenance
    epsilon: float | None = None

    def rvs(self, true_value: Any, size: Any = None, rng: Any = None) -> Any:
        """Release joint answers for the input of index ``true_value``: column indices of
        `mechanism` (``(r_1, …, r_k)`` in C order over the users' output sets), drawn exactly
        from its row as stored."""
        row = input_index(true_value, self.mechanism.shape[0])
        return release(self.mechanism, row, np.arange(self.mechanism.shape[1]), size, rng)

    @property
    def ratio(self) -> float:
        """``max_u value_u(M_u)/optimum_u`` at the certified joint mechanism (rounded up)."""
        return self.provenance.value

    _dict_fields = (
        "ratio",
        "lp_ratio",
        "values",
        "optima",
        "epsilon",
        "certified_epsilon",
        "mechanism",
    )

    _model = "common mechanism"

    def _plot_title(self) -> str:
        return f"common mechanism for {self.optima.size} users, ratio {self.ratio:.6g}"

    def _own_rows(self) -> list[tuple[str, Any]]:
        return [("users", self.optima.size)]

    def __repr__(self) -> str:
        return (
            f"CommonMechanismResult(ratio={self.ratio:.10g}, lower_bound="
            f"{self.lower_bound:.10g}, users={self.optima.size}, "
            f"{self.mechanism.shape[0]}x{self.mechanism.shape[1]}, solver={self.solver})"
        )
