"""The certified-solve template (`optmech.lp.engine.certified`) on a two-variable LP.

The LP: minimise ``x + 2y`` subject to ``x + y ≥ 4``, ``x − y ≤ 2``, ``x, y ≥ 0``. By hand: on
``x + y = 4`` the objective is ``8 − x``, and ``x ≤ y + 2`` allows ``x ≤ 3``, so the optimum is
5 at ``(3, 1)``; the dual ``max 4u − 2v`` s.t. ``u − v ≤ 1``, ``u + v ≤ 2``, ``u, v ≥ 0`` attains
5 at ``(u, v) = (3/2, 1/2)``. The hooks below certify a point by checking the rows in exact
rational arithmetic, and bound by weak duality with the solver's multipliers.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction

import cvxpy as cp
import numpy as np
import pytest

from optmech.lp.engine.certified import (
    CertifiedLP,
    NotCertified,
    Policy,
    Solve,
    certified_solve,
)
from optmech.lp.solve import Strategy, available_solvers

Point = tuple[float, float]
Built = tuple[cp.Variable, list[cp.Constraint], bool]

OPTIMUM = 5.0  # by hand (module docstring)
COST = np.array([1.0, 2.0])
#: Rows ``A z ≥ b``: x + y ≥ 4 and −x + y ≥ −2.
A = np.array([[1.0, 1.0], [-1.0, 1.0]])
RHS = np.array([4.0, -2.0])


def _feasible(z: Point) -> bool:
    x, y = (Fraction(v) for v in z)
    return x >= 0 and y >= 0 and x + y >= 4 and x - y <= 2


class Tiny(CertifiedLP[Built, Point, Point]):
    """The LP of the module docstring; ``shift`` spoils the repair of the solver's points,
    ``offers`` are known points, ``cut`` = False leaves out the row x − y ≤ 2 (a round adds it
    back)."""

    num_variables = 2

    def __init__(
        self, shift: Point = (0.0, 0.0), offers: Iterable[Point] = (), cut: bool = True
    ) -> None:
        self.shift, self.offers, self.cut = shift, list(offers), cut

    def build(self, strategy: Strategy) -> tuple[cp.Problem, Built]:
        z = cp.Variable(2, nonneg=True)
        rows = [A[0] @ z >= RHS[0]] + ([A[1] @ z >= RHS[1]] if self.cut else [])
        return cp.Problem(cp.Minimize(COST @ z), rows), (z, rows, self.cut)

    def read(self, built: Built) -> Point:
        z = np.asarray(built[0].value, dtype=float)
        return float(z[0]), float(z[1])

    def repair(self, point: Point) -> Point | None:
        # Raise y until both rows hold (a few ulps past the solver's tolerance), then shift;
        # the known points are feasible as they are.
        if any(point is known for known in self.offers):
            return point
        x, y = max(point[0], 0.0), max(point[1], 0.0)
        y = max(y, 4.0 - x, x - 2.0) * (1 + 1e-12) + 1e-12
        return x + self.shift[0], y + self.shift[1]

    def certify(self, candidate: Point) -> float | None:
        if not _feasible(candidate):
            return None
        return math.nextafter(candidate[0] + 2.0 * candidate[1], math.inf)

    def bound(self, built: Built, point: Point) -> float:
        duals = [float(np.asarray(c.dual_value).item()) for c in built[1]]
        u = np.clip(duals + [0.0] * (2 - len(duals)), 0.0, None)
        reduced = COST - A.T @ u  # must be ≥ 0 for weak duality (x, y ≥ 0, unbounded above)
        if np.any(reduced < 0):
            u = u * float(np.min(COST / np.maximum(A.T @ u, 1e-300)))
        return float(RHS @ u) - 1e-12

    def known(self) -> Iterable[tuple[str, Point]]:
        return [(f"known point {p}", p) for p in self.offers]

    def next_round(self, solve: Solve[Built, Point, Point]) -> Tiny | None:
        return None if solve.built[2] else Tiny(self.shift, self.offers, cut=True)


def test_the_loop_finds_the_optimum_computed_by_hand() -> None:
    out = certified_solve(Tiny(), Policy(solver="HIGHS"))
    assert out.lower <= OPTIMUM <= out.best.value
    assert out.best.value - out.lower < 1e-9
    assert _feasible(out.best.candidate)
    prov = out.provenance(accuracy=1e-6)
    assert prov.solver == "HIGHS" and prov.lower_bound <= OPTIMUM <= prov.value


def test_a_bad_repair_is_rejected() -> None:
    """A repair that leaves the feasible set is never returned: with nothing else, the loop
    raises; with a feasible known point, that point (worth 8 by hand) is what comes back."""
    bad = (0.0, -0.5)  # (3, 0.5): x + y = 3.5 < 4
    with pytest.raises(NotCertified) as raised:
        certified_solve(Tiny(shift=bad), Policy(solver="HIGHS"))
    assert raised.value.lower <= OPTIMUM
    out = certified_solve(Tiny(shift=bad, offers=[(0.0, 4.0)]), Policy(solver="HIGHS"))
    assert out.best.candidate == (0.0, 4.0) and out.best.value == pytest.approx(8.0)
    assert out.best.source == ("none", "exact")
    assert out.provenance().solver == "none"


def test_a_known_point_that_beats_the_lp_point_is_kept() -> None:
    """A lossy repair (y raised by 1: worth 7) leaves the interval wide; the known optimum
    (3, 1) wins, the worse known (0, 4) does not, and the winner is recorded."""
    lp = Tiny(shift=(0.0, 1.0), offers=[(0.0, 4.0), (3.0, 1.0)])
    out = certified_solve(lp, Policy(solver="HIGHS", cross_check=False))
    assert out.best.candidate == (3.0, 1.0)
    assert out.best.value == pytest.approx(OPTIMUM, rel=1e-15)
    assert [a.variant for a in out.attempts if a.solver == "none"] == ["known point (3.0, 1.0)"]
    # Without known points the lossy point is kept, its interval honest about it.
    alone = certified_solve(Tiny(shift=(0.0, 1.0)), Policy(solver="HIGHS", cross_check=False))
    assert alone.best.value == pytest.approx(7.0) and alone.lower <= OPTIMUM


@pytest.mark.skipif("CLARABEL" not in available_solvers(), reason="needs a second solver")
def test_a_wide_interval_is_cross_checked_by_the_other_solver() -> None:
    out = certified_solve(Tiny(shift=(0.0, 1.0)), Policy(solver="HIGHS"))
    checked = [a for a in out.attempts if a.variant.startswith("cross-check")]
    assert checked and all(a.solver == "CLARABEL" for a in checked)
    assert out.lower <= OPTIMUM
    narrow = certified_solve(Tiny(), Policy(solver="HIGHS"))
    assert not any(a.variant.startswith("cross-check") for a in narrow.attempts)


def test_a_round_adds_the_missing_row() -> None:
    """Without x − y ≤ 2 the relaxation's optimum is (4, 0), worth 4, whose repair (raising
    y to 2) is feasible but worth 8; the next round adds the row, and the loop ends at 5."""
    out = certified_solve(Tiny(cut=False), Policy(solver="HIGHS", cross_check=False))
    assert out.best.value == pytest.approx(OPTIMUM, rel=1e-9)
    assert any(a.variant.startswith("round 2") for a in out.attempts)
    assert out.lower <= OPTIMUM


class Refining(Tiny):
    """The lossy repair, whose refined LP (posed when the interval is wide) repairs well."""

    def refined(self, value: float) -> Tiny:
        return Tiny()


def test_a_refined_lp_replaces_a_worse_point_and_is_recorded() -> None:
    lp = Refining(shift=(0.0, 1.0))
    out = certified_solve(lp, Policy(solver="HIGHS", cross_check=False))
    assert out.best.value == pytest.approx(OPTIMUM, rel=1e-9)
    assert any(a.variant.startswith("refined") for a in out.attempts)
    assert out.used.best is not None and out.used.best.value == out.best.value
