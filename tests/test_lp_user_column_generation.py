"""The user LPs solved by column generation, against independent optima.

Independent truth: the GRS optimum (the geometric mechanism followed by the Bayes remap, Ghosh,
Roughgarden & Sundararajan (2012), Thm. 3.1) in exact rational arithmetic for dyadic priors, or
in floating point for random ones; and the full LP solved by Clarabel (a different solver and a
different method), whose certified interval must overlap ours: both contain the optimum, so
``lower_bound ≤ other.value`` and ``other.lower_bound ≤ value`` hold with no tolerance.
"""

from __future__ import annotations

import itertools
import logging
import math
import warnings
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest
from _reference import g_plus_bayes_remap, g_plus_bayes_remap_exact

from optmech.exceptions import InaccurateSolutionWarning, ProblemTooLargeError, SolverError
from optmech.graphs import grid_graph
from optmech.lp.incremental import new_incremental_model, run_incremental
from optmech.lp.user import bayesian_mechanism, common_mechanism, minimax_mechanism
from optmech.lp.user.column_engine import geometric_remap_start
from optmech.lp.user.methods import SolveMethod, admissible_method

CG = "column-generation"


def distance_loss(n: int, power: float) -> np.ndarray:
    i = np.arange(n + 1)
    return np.abs(i[:, None] - i[None, :]).astype(float) ** power


def overlap(a, b) -> None:
    """Both certified intervals contain the optimum: they overlap, with no tolerance."""
    assert a.lower_bound <= b.value and b.lower_bound <= a.value


def used_columns(res) -> bool:
    return any(a.variant.startswith("column generation") for a in res.provenance.attempts)


DYADIC = [  # (n, ε, power of |e|, prior seed or None for uniform)
    (3, math.log(2), 1, None),
    (7, math.log(3), 2, None),
    (9, math.log(3), 1, 2),
    (10, math.log(2), 2, 3),
    (15, 0.25, 1, 4),
]


@pytest.mark.parametrize(("n", "eps", "power", "seed"), DYADIC)
def test_interval_contains_the_exact_grs_optimum(
    n: int, eps: float, power: int, seed: int | None
) -> None:
    """``lower_bound ≤ OPT ≤ value`` exactly, OPT bracketed by the GRS optimum at the two floats
    next to ``math.exp(−ε)`` (the optimum is monotone in ``α``; libm's exp is within an ulp)."""
    if seed is None:
        prior = [Fraction(1, n + 1)] * (n + 1)
    else:
        counts = [int(c) for c in np.random.default_rng(seed).integers(1, 8, size=n)]
        scale = 1 << sum(counts).bit_length()
        prior = [Fraction(c, scale) for c in counts] + [Fraction(scale - sum(counts), scale)]
    p = np.array([float(v) for v in prior])
    loss = [[Fraction(abs(i - r) ** power) for r in range(n + 1)] for i in range(n + 1)]
    a = math.exp(-eps)
    opt_lo = g_plus_bayes_remap_exact(prior, loss, Fraction(math.nextafter(a, 0.0)))
    opt_hi = g_plus_bayes_remap_exact(prior, loss, Fraction(math.nextafter(a, 1.0)))
    res = bayesian_mechanism(p, distance_loss(n, power), eps)
    assert used_columns(res) and not res.symmetry_reduced
    assert res.lower_bound <= math.nextafter(float(opt_hi), math.inf)
    assert res.value >= math.nextafter(float(opt_lo), -math.inf)
    assert res.provenance.within_accuracy and res.certified_epsilon <= eps
    assert np.all(res.mechanism >= 0) and np.allclose(res.mechanism.sum(axis=1), 1.0, atol=1e-14)


@pytest.mark.parametrize(
    ("n", "eps", "loss"),
    [(40, 0.5, "abs"), (25, 2.0, "squared"), (60, 0.1, "zero-one"), (30, 30.0, "abs")],
)
def test_random_priors_match_grs_and_the_full_lp(n: int, eps: float, loss: str) -> None:
    """Dirichlet priors: the interval contains the GRS optimum (float reference, relative 1e-12
    for its own rounding) and overlaps Clarabel's interval of the full LP."""
    prior = np.random.default_rng(n).dirichlet(np.ones(n + 1))
    res = bayesian_mechanism(prior, loss, eps)
    matrix = {"abs": distance_loss(n, 1), "squared": distance_loss(n, 2)}.get(loss)
    if matrix is None:
        matrix = 1.0 - np.eye(n + 1)
    ref = g_plus_bayes_remap(prior, matrix, eps)
    assert res.lower_bound <= ref * (1 + 1e-12) and res.value >= ref * (1 - 1e-12)
    assert res.provenance.within_accuracy and res.certified_epsilon <= eps
    overlap(res, bayesian_mechanism(prior, loss, eps, solver="CLARABEL"))


def test_the_theorem_candidate_is_the_first_master() -> None:
    """For a Bayesian user on a count query the warm start (G + Bayes remap) is optimal
    (GRS Thm. 3.1): no ray prices out and the run ends after its first round."""
    prior = np.random.default_rng(8).dirichlet(np.ones(81))
    res = bayesian_mechanism(prior, "abs", 0.7)
    assert "column generation: 1 rounds" in res.provenance.attempts[-1].variant


def test_warm_start_is_the_geometric_mechanism_remapped() -> None:
    """``geometric_remap_start`` equals ``G`` (GRS §3) times the deterministic remap matrix of
    the Bayes choice, built densely here from the paper's formula."""
    n, eps = 12, 0.4
    prior = np.random.default_rng(2).dirichlet(np.ones(n + 1))
    w = prior[:, None] * distance_loss(n, 1)
    a = math.exp(-eps)
    i = np.arange(n + 1)
    g = a ** np.abs(i[:, None] - i[None, :]) * (1 - a) / (1 + a)
    g[:, 0] = a**i / (1 + a)
    g[:, n] = a ** (n - i) / (1 + a)
    remap = np.eye(n + 1)[np.argmin(g.T @ w, axis=1)]
    assert np.allclose(geometric_remap_start(w, eps), g @ remap, rtol=1e-12, atol=1e-15)


def test_other_outputs_and_a_loss_matrix() -> None:
    """Outputs a coarser grid than the inputs (m ≠ N), a non-monotone random loss matrix:
    overlap with Clarabel's full LP."""
    n, eps = 20, 0.6
    rng = np.random.default_rng(11)
    prior = rng.dirichlet(np.ones(n + 1))
    coarse = bayesian_mechanism(prior, "abs", eps, outputs=np.linspace(0, n, 7), method=CG)
    assert coarse.mechanism.shape == (n + 1, 7) and used_columns(coarse)
    overlap(
        coarse, bayesian_mechanism(prior, "abs", eps, outputs=np.linspace(0, n, 7), method="full")
    )
    loss = rng.random((n + 1, 9))
    res = bayesian_mechanism(prior, loss, eps, method=CG)
    assert res.provenance.within_accuracy and res.certified_epsilon <= eps
    overlap(res, bayesian_mechanism(prior, loss, eps, solver="CLARABEL"))


def test_a_tree_neighbour_graph() -> None:
    """A random labelled tree (not a path): column generation applies, and agrees with the full
    LP; a graph with a cycle falls back to the full LP."""
    tree = nx.random_labeled_tree(15, seed=4)
    prior = np.random.default_rng(4).dirichlet(np.ones(15))
    loss = np.random.default_rng(5).random((15, 6))
    res = bayesian_mechanism(prior, loss, 0.8, graph=tree, method=CG)
    assert used_columns(res) and res.provenance.within_accuracy
    overlap(res, bayesian_mechanism(prior, loss, 0.8, graph=tree, method="full"))
    cycle = nx.cycle_graph(15)
    assert not used_columns(bayesian_mechanism(prior, loss, 0.8, graph=cycle))


@pytest.mark.parametrize(
    ("n", "eps", "side"), [(30, 0.5, None), (24, 1.5, [3, 4, 10, 20]), (40, 0.2, None)]
)
def test_minimax_matches_the_full_lp(n: int, eps: float, side: list[int] | None) -> None:
    """Minimax users (Gupte & Sundararajan (2010)): the master gains the risk rows; the interval
    overlaps Clarabel's full LP and lies below G's worst case (a feasible mechanism)."""
    res = minimax_mechanism("abs", eps, n=n, side_information=side, method=CG)
    assert used_columns(res) and res.provenance.within_accuracy and res.certified_epsilon <= eps
    full = minimax_mechanism("abs", eps, n=n, side_information=side, solver="CLARABEL")
    overlap(res, full)
    rows = np.arange(n + 1) if side is None else np.array(side)
    a = math.exp(-eps)
    i = np.arange(n + 1)
    g = a ** np.abs(i[:, None] - i[None, :]) * (1 - a) / (1 + a)
    g[:, 0] = a**i / (1 + a)
    g[:, n] = a ** (n - i) / (1 + a)
    assert res.lower_bound <= float(np.max((g * distance_loss(n, 1))[rows].sum(axis=1)))


def test_common_mechanism_computes_each_users_optimum_by_columns() -> None:
    """The users' own optima by column generation give the ratio interval found with the full
    LP's optima: the two joint LPs divide by optima that differ by at most their certified
    widths (below 1e-6 relative), hence the tolerance."""
    prior = np.random.default_rng(1).dirichlet(np.ones(6))
    a = common_mechanism([prior, prior[::-1]], ["abs", "squared"], 1.0)
    optima = [
        bayesian_mechanism(p, loss, 1.0, method="full").value
        for p, loss in [(prior, "abs"), (prior[::-1], "squared")]
    ]
    b = common_mechanism([prior, prior[::-1]], ["abs", "squared"], 1.0, optima=optima)
    assert a.lower_bound <= b.ratio * (1 + 1e-6) and b.lower_bound <= a.ratio * (1 + 1e-6)


def test_method_names_and_where_column_generation_applies() -> None:
    auto, full = SolveMethod.AUTO, SolveMethod.FULL
    assert admissible_method("auto", None, vertex=False, solver=None) is auto
    assert admissible_method("auto", None, vertex=False, solver="highs") is auto
    assert admissible_method("auto", None, vertex=True, solver=None) is full
    assert admissible_method("auto", None, vertex=False, solver="CLARABEL") is full
    assert admissible_method("auto", grid_graph((3, 3)), vertex=False, solver=None) is full
    assert admissible_method("full", None, vertex=False, solver=None) is full
    with pytest.raises(
        ValueError,
        match=r"`method` must be one of \['auto', 'column-generation', 'full'\]; got 'fast'",
    ):
        bayesian_mechanism(np.full(3, 1 / 3), "abs", 1.0, method="fast")
    with pytest.raises(ValueError, match="vertex=True"):
        bayesian_mechanism(np.full(3, 1 / 3), "abs", 1.0, method=CG, vertex=True)
    with pytest.raises(ValueError, match="solver='CLARABEL'"):
        minimax_mechanism("abs", 1.0, n=3, method=CG, solver="CLARABEL")
    with pytest.raises(ValueError, match="has cycles"):
        bayesian_mechanism(np.full(4, 1 / 4), "abs", 1.0, graph=nx.cycle_graph(4), method=CG)


def test_auto_prefers_the_whole_lp_where_rays_hardly_decay() -> None:
    """ε·n = 0.6 (n = 30, ε = 0.02): a minimax user and a loss matrix go to the whole LP; a
    Bayesian count query with |e| (the theorem's start is optimal) still goes to columns; the
    results overlap the other method's certified intervals."""
    eps, n = 0.02, 30
    mm = minimax_mechanism("abs", eps, n=n)
    assert not used_columns(mm)
    overlap(mm, minimax_mechanism("abs", eps, n=n, method=CG))
    prior = np.random.default_rng(30).dirichlet(np.ones(n + 1))
    loss = np.random.default_rng(31).random((n + 1, n + 1))
    assert not used_columns(bayesian_mechanism(prior, loss, eps))
    grs = bayesian_mechanism(prior, "abs", eps)
    assert used_columns(grs)
    overlap(grs, bayesian_mechanism(prior, "abs", eps, method="full"))


def test_auto_falls_back_to_the_whole_lp_when_the_interval_is_wide(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A column-generation result held to an accuracy it cannot meet (1e-300) is followed by the
    whole LP; the narrower certified interval is returned."""
    import optmech.lp.user.dispatch as dispatch

    real_columns, real_whole = dispatch.solve_by_columns, dispatch.solve_user_lp
    seen: dict[str, object] = {}

    def columns(*args, **kwargs):
        seen["columns"] = real_columns(*args, **{**kwargs, "accuracy": 1e-300})
        return seen["columns"]

    def whole(*args, **kwargs):
        seen["whole"] = real_whole(*args, **kwargs)
        return seen["whole"]

    monkeypatch.setattr(dispatch, "solve_by_columns", columns)
    monkeypatch.setattr(dispatch, "solve_user_lp", whole)
    with warnings.catch_warnings():  # the columns' result, if kept, warns of its 1e-300
        warnings.simplefilter("ignore", InaccurateSolutionWarning)
        res = minimax_mechanism("abs", 0.8, n=40)
    assert "columns" in seen and "whole" in seen
    gaps = {k: v.provenance.relative_gap for k, v in seen.items()}  # type: ignore[attr-defined]
    assert res.provenance.relative_gap == min(gaps.values())


def test_vertex_solutions_come_from_the_full_lp_simplex() -> None:
    """``vertex=True`` is served by the full LP's simplex (a basic solution of the master need
    not be a vertex of the full LP), with the GRS optimum in its interval."""
    prior = np.random.default_rng(6).dirichlet(np.ones(9))
    res = bayesian_mechanism(prior, "abs", math.log(2), vertex=True)
    assert not used_columns(res) and res.solver == "HIGHS"
    assert res.provenance.attempts[0].variant == "as built"
    ref = g_plus_bayes_remap(prior, distance_loss(8, 1), math.log(2))
    assert res.lower_bound <= ref * (1 + 1e-12) and res.value >= ref * (1 - 1e-12)


def test_rounds_are_logged(caplog: pytest.LogCaptureFixture) -> None:
    """One INFO record per round on ``optmech.lp.user.column_generation``, carrying the columns,
    the objective, the bound and the least reduced cost as data; the bound never exceeds the
    objective by more than rounding, and the objective never rises."""
    with caplog.at_level(logging.INFO, logger="optmech.lp.user.column_generation"):
        res = minimax_mechanism("abs", 0.5, n=20, method=CG)
    rounds = [
        r.optmech
        for r in caplog.records
        if r.name == "optmech.lp.user.column_generation" and hasattr(r, "optmech")
    ]
    variant = [a.variant for a in res.provenance.attempts if a.variant.startswith("column")][-1]
    assert len(rounds) == int(variant.split(": ")[1].split(" rounds")[0]) >= 1
    assert [r["round"] for r in rounds] == list(range(1, len(rounds) + 1))
    for r in rounds:
        assert {"columns", "objective", "bound", "least_reduced_cost", "added"} <= set(r)
        assert r["bound"] <= r["objective"] * (1 + 1e-9)
    objectives = [r["objective"] for r in rounds]
    assert all(b <= a * (1 + 1e-9) for a, b in itertools.pairwise(objectives))


def test_refusal_counts_the_problem_solved_and_names_the_model() -> None:
    """The estimate is that of the method used; the message names the model's source."""
    prior = np.full(101, 1 / 101)
    with pytest.raises(
        ProblemTooLargeError, match=r"(?i)column generation.*benchmarks/results/grs_scaling\.json"
    ) as cg:
        bayesian_mechanism(prior, "abs", 1.0, max_memory_gb=1e-6)
    with pytest.raises(ProblemTooLargeError, match="over the mirror orbits") as mirror:
        bayesian_mechanism(prior, "abs", 1.0, max_memory_gb=1e-6, method="full")
    with pytest.raises(ProblemTooLargeError, match=r"(?i)the full LP: about") as full:
        bayesian_mechanism(
            prior, "abs", 1.0, max_memory_gb=1e-6, method="full", reduce_symmetric=False
        )
    assert "GB of solver memory" in str(cg.value) and "refused before building" in str(full.value)
    assert str(mirror.value) != str(full.value)


def test_master_status_is_handled_like_every_solve() -> None:
    """An infeasible master (x = 1 and x = 2 with one column) is retried from a cleared basis
    and then raised, naming the solver, the status and both attempts."""
    model = new_incremental_model()
    model.addRows(
        2,
        np.array([1.0, 2.0]),
        np.array([1.0, 2.0]),
        0,
        np.zeros(2, dtype=np.int32),
        np.zeros(0, dtype=np.int32),
        np.zeros(0),
    )
    model.addCols(
        1,
        [0.0],
        [0.0],
        [np.inf],
        2,
        np.array([0], dtype=np.int32),
        np.array([0, 1], dtype=np.int32),
        np.array([1.0, 1.0]),
    )
    with pytest.raises(SolverError, match="infeasible") as info:
        run_incremental(model, "test")
    assert [a.variant for a in info.value.attempts] == ["test", "test, restarted"]
    assert all(a.status == "infeasible" for a in info.value.attempts)


def test_a_long_path_at_large_epsilon_stays_private() -> None:
    """n = 300, ε = 4: rays fall below 1e-300 within the path (they are floored, never 0), and
    the mechanism is certified with the GRS optimum in its interval."""
    n, eps = 300, 4.0
    prior = np.random.default_rng(3).dirichlet(np.ones(n + 1))
    res = bayesian_mechanism(prior, "abs", eps)
    ref = g_plus_bayes_remap(prior, distance_loss(n, 1), eps)
    assert res.certified_epsilon <= eps
    used = res.mechanism[:, res.mechanism.max(axis=0) > 0]
    assert np.all(used > 0)  # no zero facing a positive entry in a used column
    assert res.lower_bound <= ref * (1 + 1e-12) and res.value >= ref * (1 - 1e-12)
    assert res.provenance.within_accuracy
