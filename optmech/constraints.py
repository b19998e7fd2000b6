"""Constraints of the caller's own, for the designers: declarative, validated, frozen.

A designer minimises its objective over ε-DP mechanisms; these add linear conditions on the
mechanism. Each is a small frozen value that says *what* must hold, never *how*: every LP builder
translates the constraints it supports into rows on its own variable and refuses the others by
name. Two variables occur in optmech:

* a **mechanism matrix** ``Q[i, r] = P(output r | input x_i)`` (the local model, the count-query
  user LPs): a constraint is a family of rows on ``Q``;
* a **noise density** ``f`` of additive noise ``y = x + Z``: the same conditions read as rows on
  ``f``, with the input fixed at 0.

The constraints, on a mechanism matrix and on additive noise:

- `Unbiased`: $Σ_r Q[i, r] y_r = x_i$ for every i; for noise, $E Z = 0$.
- `MaxRisk`: $Σ_r Q[i, r] ℓ(y_r, x_i) ≤ b$ per i; for noise, $E ℓ(Z) ≤ b$.
- `Monotone`: $P(Y ≤ y | x_i)$ non-increasing in i; always true for noise.
- `TailBound`: $P(|Y − x_i| > t | x_i) ≤ q$ per i; for noise, $P(|Z| > t) ≤ q$.
- `MaxCost`: $E c(Y − X) ≤ b$ (under the prior; else per i); for noise, $E c(Z) ≤ b$.
- `Custom`: a callable's cvxpy constraints, on either.

Unbiasedness is the condition of Badanidiyuru et al. (2023): a model trained on labels released
this way sees the true labels in expectation. A risk cap per input is a fairness condition
across inputs; a second cost keeps, say, the absolute error in check while the squared error is
minimised.

Every designer that takes ``constraints=`` returns a mechanism that meets each declarative
constraint *as returned* (after its privacy repair), to a residual of at most
`RESIDUAL_TOL` (1e-9) relative to the constraint's scale, and lists each constraint and
its residual in its provenance
(`ConstraintRecord`).
A callable's constraints are passed to the solver and their residual is reported, but only
the declarative ones are kept through the repair.

Examples
--------
>>> MaxRisk(0.5)
MaxRisk(bound=0.5)
>>> as_constraints([Unbiased(), MaxRisk(2)])
(Unbiased(), MaxRisk(bound=2.0))
>>> MaxRisk(-1)
Traceback (most recent call last):
...
ValueError: `bound` must be a finite real number in (0, inf); got -1.0.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from optmech._validation import check_callable, check_real, check_real_array, describe
from optmech.costs import Cost, as_cost

__all__ = [
    "RESIDUAL_TOL",
    "Constraint",
    "Custom",
    "MaxCost",
    "MaxRisk",
    "Monotone",
    "TailBound",
    "Unbiased",
    "as_constraints",
]

#: Largest residual accepted on a returned mechanism, relative to the constraint's scale.
RESIDUAL_TOL = 1e-9


class Constraint:
    """Base class of the declarative constraints (frozen dataclasses).

    Examples
    --------
    >>> from optmech.constraints import Constraint, MaxRisk, Unbiased
    >>> isinstance(Unbiased(), Constraint), isinstance(MaxRisk(1.0), Constraint)
    (True, True)
    """

    #: ``"equality"``, ``"inequality"`` or ``"custom"``.
    kind: str = "inequality"

    @property
    def name(self) -> str:
        """How provenance and error messages name the constraint (its ``repr``)."""
        return repr(self)


@dataclass(frozen=True)
class Unbiased(Constraint):
    """The output is unbiased: ``E[output | input] = input`` (Badanidiyuru et al. (2023)).

    On a mechanism matrix, $Σ_r Q[i, r] y_r = x_i$ for every input; on additive noise, zero
    mean. The outputs must reach below the smallest input and above the largest.

    Examples
    --------
    >>> import optmech
    >>> from optmech.constraints import Unbiased
    >>> local = optmech.local_mechanism(None, "squared", 1.0, objective="minimax",
    ...                                 inputs=[0, 1], outputs=[-2, -1, 0, 1, 2, 3],
    ...                                 constraints=[Unbiased()])
    >>> means = local.mechanism @ local.outputs
    >>> [round(float(m), 6) for m in means]
    [0.0, 1.0]
    """

    kind = "equality"


@dataclass(frozen=True)
class MaxRisk(Constraint):
    """The expected loss of every input is at most ``bound`` (a fairness cap across inputs).

    Parameters
    ----------
    bound : float
        In (0, inf), in the units of the designer's loss.

    Examples
    --------
    >>> import optmech
    >>> from optmech.constraints import MaxRisk
    >>> local = optmech.local_mechanism([0.25, 0.5, 0.25], "abs", 1.0, inputs=[0, 1, 2],
    ...                                 constraints=[MaxRisk(0.8)])
    >>> risk = (local.mechanism * abs(local.inputs[:, None] - local.outputs[None, :])).sum(axis=1)
    >>> bool(risk.max() <= 0.8 + 1e-6)
    True
    """

    bound: float

    def __post_init__(self) -> None:
        value = check_real("bound", self.bound, low=0.0, low_open=True)
        object.__setattr__(self, "bound", value)


@dataclass(frozen=True)
class Monotone(Constraint):
    """The output is stochastically increasing in the input.

    $P(output ≤ y | x_i) ≥ P(output ≤ y | x_j)$ for inputs ``x_i < x_j`` and every ``y``;
    by transitivity it suffices for consecutive inputs. Additive noise meets it always.

    Examples
    --------
    >>> import optmech
    >>> from optmech.constraints import Monotone
    >>> local = optmech.local_mechanism([0.25, 0.5, 0.25], "abs", 1.0, inputs=[0, 1, 2],
    ...                                 constraints=[Monotone()])
    >>> upper = local.mechanism[:, ::-1].cumsum(axis=1)  # P(output ≥ y) per input
    >>> bool((upper[1:] >= upper[:-1] - 1e-6).all())
    True
    """


@dataclass(frozen=True)
class TailBound(Constraint):
    """$P(|output − input| > t) ≤ probability$ for every input (for additive noise, of |Z|).

    Parameters
    ----------
    t : float
        The distance, in [0, inf).
    probability : float
        The largest tail mass allowed, in [0, 1).

    Examples
    --------
    >>> import optmech
    >>> from optmech.constraints import TailBound
    >>> local = optmech.local_mechanism([0.25, 0.5, 0.25], "abs", 1.0, inputs=[0, 1, 2],
    ...                                 constraints=[TailBound(1.0, 0.3)])
    >>> far = abs(local.inputs[:, None] - local.outputs[None, :]) > 1.0
    >>> bool((local.mechanism * far).sum(axis=1).max() <= 0.3 + 1e-6)
    True
    """

    t: float
    probability: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "t", check_real("t", self.t, low=0.0))
        prob = check_real("probability", self.probability, low=0.0, high=1.0, high_open=True)
        object.__setattr__(self, "probability", prob)


@dataclass(frozen=True)
class MaxCost(Constraint):
    """A second cost kept under a bound: $E c(output − input) ≤ bound$.

    The expectation is under the designer's prior when it has one, and for every input
    otherwise (a minimax designer).

    Parameters
    ----------
    cost : Cost, str or callable
        A cost of $output − input$ (`optmech.costs.as_cost`).
    bound : float
        In (0, inf).

    Examples
    --------
    >>> import optmech
    >>> from optmech.constraints import MaxCost
    >>> cap = MaxCost(optmech.costs.Squared(), 0.5)  # keep the mean squared error under 0.5
    >>> local = optmech.local_mechanism([0.25, 0.5, 0.25], "abs", 1.0, inputs=[0, 1, 2],
    ...                                 constraints=[cap])
    >>> bool(local.mechanism.shape == (3, 3))
    True
    """

    cost: Cost
    bound: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "cost", as_cost(self.cost))
        value = check_real("bound", self.bound, low=0.0, low_open=True)
        object.__setattr__(self, "bound", value)

    def values(self, inputs: Any, outputs: Any) -> np.ndarray:
        """$C[i, r] = c(y_r − x_i)$, checked finite and non-negative."""
        x = check_real_array("inputs", inputs, ndim=1)
        y = check_real_array("outputs", outputs, ndim=1)
        matrix = self.cost.loss_matrix(x, y)
        if not np.all(np.isfinite(matrix)) or np.any(matrix < 0):
            raise ValueError(
                f"`cost` of {self!r} must be finite and non-negative on the outputs; "
                f"got values in [{float(np.min(matrix))}, {float(np.max(matrix))}]."
            )
        return matrix


@dataclass(frozen=True)
class Custom(Constraint):
    """An escape hatch: ``function(variables)`` returns a list of cvxpy constraints.

    ``variables`` is the designer's namespace of cvxpy variables (for the local model
    ``variables.mechanism``, the ``(n, m)`` matrix, and ``variables.envelope``, the column
    minima). The solver sees these constraints and the provenance reports their largest
    violation at the returned mechanism, but the privacy repair does not know them: prefer a
    declarative constraint where one exists.

    Parameters
    ----------
    function : callable
        ``function(variables) -> list of cvxpy.Constraint``.
    label : str
        How provenance names it.

    Examples
    --------
    >>> import optmech
    >>> from optmech.constraints import Custom
    >>> first_row = Custom(lambda v: [v.mechanism[0, 0] >= 0.5], label="keep input 0")
    >>> local = optmech.local_mechanism([0.5, 0.5], "abs", 1.0, inputs=[0, 1],
    ...                                 constraints=[first_row])
    >>> bool(local.mechanism[0, 0] >= 0.5 - 1e-6)
    True
    """

    function: Callable[[Any], Any] = field(repr=False)
    label: str = "custom"

    kind = "custom"

    def __post_init__(self) -> None:
        check_callable("function", self.function)
        if not isinstance(self.label, str):
            raise TypeError(f"`label` must be a string; got {describe(self.label)}.")

    @property
    def name(self) -> str:
        """``Custom(label)``."""
        return f"Custom({self.label!r})"


def as_constraints(constraints: Any) -> tuple[Constraint, ...]:
    """``constraints`` as a tuple of `Constraint`: one constraint, a callable
    (wrapped as `Custom`) or a sequence of those.

    Raises
    ------
    TypeError
        Anything else, naming ``constraints``.

    Examples
    --------
    >>> from optmech.constraints import MaxRisk, Unbiased, as_constraints
    >>> as_constraints(None), as_constraints(Unbiased())
    ((), (Unbiased(),))
    >>> as_constraints([Unbiased(), MaxRisk(0.5)])
    (Unbiased(), MaxRisk(bound=0.5))
    """
    if constraints is None:
        return ()
    items: Sequence[Any]
    if isinstance(constraints, Constraint) or callable(constraints):
        items = (constraints,)
    elif isinstance(constraints, list | tuple):
        items = constraints
    else:
        raise TypeError(
            "`constraints` must be a constraint of optmech.constraints, a callable or a "
            f"sequence of them; got {describe(constraints)}."
        )
    out = []
    for item in items:
        if isinstance(item, Constraint):
            out.append(item)
        elif callable(item) and not isinstance(item, type):
            out.append(Custom(item, getattr(item, "__name__", "custom")))
        else:
            raise TypeError(
                "`constraints` must hold constraints of optmech.constraints (Unbiased(), "
                f"MaxRisk(b), ...) or callables; got {describe(item)}."
            )
    return tuple(out)
