"""User-specific optimal mechanisms over a neighbour graph: the Bayesian and minimax LPs.

A **user** of a query with results (inputs) ``i`` has a loss ``l(i, r)`` for answer ``r``, and
either a prior ``p`` over the inputs (Bayesian; Ghosh, Roughgarden & Sundararajan (2012), §2.2)
or side information ``S ⊆ inputs`` (minimax; Gupte & Sundararajan (2010)). Over all oblivious
ε-DP mechanisms ``x[i, r] = P(r | i)``:

Bayesian user LP (GRS (2)–(6)):

    minimise   Σ_i p_i Σ_r x[i, r] l(i, r)
    subject to Σ_r x[i, r] = 1,  x ≥ 0,
               x[i, r] ≤ e^ε x[i', r]   for every edge i ~ i' (both directions), every r.

Minimax user LP: ``minimise max_{i ∈ S} Σ_r x[i, r] l(i, r)`` (an epigraph variable ``t``).
`common_mechanism` asks whether one mechanism serves several users at once
(Brenner & Nissim (2014)).

The package, along the seams of the computation (the pieces it shares with the local model
are in `optmech.lp.matrix`, below both):

* `setting` — inputs, outputs, graph, loss; size limits.
* `build` — the vectorised cvxpy LP with *named* constraints.
* `reductions` — the mirror reduction (``apply`` / ``invert``).
* `objectives` — what differs between the LPs.
* `bounds` — rigorous Lagrangian lower bounds.
* `repair` — from a solver's point to a certified ε-DP mechanism.
* `engine` — the solve path of the whole LP.
* `constrained` — the whole LP with the caller's constraints
  (`optmech.constraints`), by the envelope LP of `optmech.lp.matrix`.
* `methods` — the whole LP or column generation (the default on trees: `cone`, `cone_bounds`,
  `column_generation`, `column_engine`); `size_model` — time and memory by method.
* `result`, `api` — results and entry points.

What is returned is **certified, not trusted**: an exactly ε-DP mechanism (the independent
certifier of `optmech.certify.matrix` proves ``certified ε ≤ ε``), its
value rounded up, and a rigorous lower bound rounded down, so the LP's optimum lies in
``[lower_bound, value]`` whatever the solver's tolerances
(`Provenance`).

Examples
--------
>>> import numpy as np
>>> res = bayesian_mechanism(np.full(4, 0.25), "abs", 1.0)
>>> res.mechanism.shape, res.certified_epsilon <= 1.0, res.lower_bound <= res.value
((4, 4), True, True)
"""

from optmech._validation import check_prior
from optmech.lp.matrix.build import (
    Bounds,
    Duals,
    LPData,
    LPForm,
    RowScaling,
    UserLP,
    build_user_lp,
    build_user_problem,
    privacy_matrix,
    row_forms,
)
from optmech.lp.matrix.objectives import EpigraphObjective, LinearObjective
from optmech.lp.matrix.repair import make_private
from optmech.lp.matrix.result import CommonMechanismResult, UserMechanism, UserObjective
from optmech.lp.matrix.setting import (
    DEFAULT_MAX_MEMORY_GB,
    EPSILON_MAX,
    UserSetting,
    check_epsilon,
    resolve_setting,
    side_information_rows,
)
from optmech.lp.user.api import bayesian_mechanism, common_mechanism, minimax_mechanism
from optmech.lp.user.reductions import MirrorReduction, NoReduction, is_mirror_symmetric

__all__ = [
    "DEFAULT_MAX_MEMORY_GB",
    "EPSILON_MAX",
    "Bounds",
    "CommonMechanismResult",
    "Duals",
    "EpigraphObjective",
    "LPData",
    "LPForm",
    "LinearObjective",
    "MirrorReduction",
    "NoReduction",
    "RowScaling",
    "UserLP",
    "UserMechanism",
    "UserObjective",
    "UserSetting",
    "bayesian_mechanism",
    "build_user_lp",
    "build_user_problem",
    "check_epsilon",
    "check_prior",
    "common_mechanism",
    "is_mirror_symmetric",
    "make_private",
    "minimax_mechanism",
    "privacy_matrix",
    "resolve_setting",
    "row_forms",
    "side_information_rows",
]
