"""The compressed 2-D window rows have the same feasible set as all pairs, and the same optimum.

Independent truth: a brute-force check of every pair ``f(p) ≤ e^ε f(p + d)`` over the footprint
(array slices here, not the module's rows); and the 2-D LP solved with all pairs against the
run form, on small grids. Random points are seeded; no test has a false-failure rate.
"""

from __future__ import annotations

import numpy as np
import pytest

import optmech
from optmech.certify.noise2d import NORMS, footprint, row_half_widths
from optmech.lp.additive2d.lp import orbits
from optmech.lp.additive2d.windows import window_size_2d, window_system_2d


def _all_pairs_hold(g: np.ndarray, offsets: np.ndarray, factor: float) -> bool:
    n = g.shape[0]
    for d1, d2 in offsets.tolist():
        a = g[max(0, -d1) : n - max(0, d1), max(0, -d2) : n - max(0, d2)]
        b = g[max(0, d1) : n + min(0, d1), max(0, d2) : n + min(0, d2)]
        if np.any(a > factor * b):
            return False
    return True


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("m", [1, 2, 3, 5])
def test_runs_and_pairs_accept_exactly_the_private_points(norm: str, m: int) -> None:
    """Random positive points, half of them feasible: the canonical auxiliaries satisfy every
    row iff every pair holds (so the rows are no stronger), and the auxiliaries are minima of
    cells inside their windows (so they are no weaker: checked by the same equivalence)."""
    n, factor = 9, 1.6
    offsets = footprint(norm, m)
    widths = row_half_widths(norm, m)
    systems = [window_system_2d(n, widths, factor, method=k) for k in ("pairs", "runs")]
    rng = np.random.default_rng(11)
    seen = [0, 0]
    for _ in range(200):
        g = np.exp(rng.uniform(-1, 1, (n, n)) * rng.choice([0.1, 0.25, 0.6]))
        truth = _all_pairs_hold(g, offsets, factor)
        seen[truth] += 1
        for system in systems:
            assert bool(np.all(system.residual(g.ravel()) <= 1e-12)) == truth
    assert min(seen) > 20  # both outcomes are exercised


@pytest.mark.parametrize("group", ["dihedral", "reflections"])
def test_rows_at_one_cell_per_orbit_suffice_for_symmetric_points(group: str) -> None:
    """A point invariant under the group satisfies all pairs iff the rows at the orbits'
    representatives hold."""
    n0, factor = 5, 1.5
    orbit, reps, _ = orbits(n0, group)
    offsets = footprint("l2", 3)
    widths = row_half_widths("l2", 3)
    system = window_system_2d(2 * n0, widths, factor, method="runs", rows_at=reps)
    rng = np.random.default_rng(3)
    for _ in range(100):
        values = np.exp(rng.uniform(-1, 1, reps.size) * rng.choice([0.1, 0.3]))
        g = values[orbit].reshape(2 * n0, 2 * n0)
        truth = _all_pairs_hold(g, offsets, factor)
        assert bool(np.all(system.residual(g.ravel()) <= 1e-12)) == truth


def test_the_run_form_is_smaller_than_all_pairs() -> None:
    """At 8 cells per Δ and 96² cells with one row set per dihedral orbit: rows and nonzeros
    of the run form against all pairs (the size estimate bounds the built system)."""
    n0, m = 48, 8
    _, reps, _ = orbits(n0, "dihedral")
    for norm in NORMS:
        widths = row_half_widths(norm, m)
        pairs = window_size_2d(2 * n0, widths, "pairs", rows_at=reps.size)
        runs = window_system_2d(2 * n0, widths, np.e, method="runs", rows_at=reps)
        estimate = window_size_2d(2 * n0, widths, "runs", rows_at=reps.size)
        assert runs.a_g.shape[0] <= estimate[0] and runs.num_aux <= estimate[1]
        assert runs.a_g.nnz + runs.a_u.nnz < pairs[2] / 2


@pytest.mark.parametrize("norm", NORMS)
def test_lp_optimum_is_the_same_with_pairs_and_runs(norm: str) -> None:
    """The two forms give the same optimum, so each value lies within its own certified gap of
    the other's interval."""
    kw = dict(dimension=2, sensitivity_norm=norm, resolution=3, periods=2, tails="gauge")
    a = optmech.design_noise(optmech.PureDP(1.0), sensitivity=1.0, cost="l1", window="pairs", **kw)
    b = optmech.design_noise(optmech.PureDP(1.0), sensitivity=1.0, cost="l1", window="runs", **kw)
    assert a.record.window == "pairs" and b.record.window == "runs"
    assert b.lower_bound <= a.value and a.lower_bound <= b.value
    assert abs(a.value - b.value) <= max(a.gap, b.gap)
