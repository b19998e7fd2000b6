"""Dual certificates of GRS universal optimality (``optmech.theorems.certificates``).

Independent truth:

* the candidate's cost is recomputed here from the definition of the range-restricted geometric
  mechanism (Ghosh, Roughgarden & Sundararajan (2012), §2) as a dense matrix, the Bayes remap
  by a dense argmin of ``Gᵀ diag(p) L``, and the cost summed with :func:`math.fsum`;
* the LP optimum comes from exact rational arithmetic (``_reference.g_plus_bayes_remap_exact``,
  GRS Thm. 3.1) on dyadic priors and integer losses, bracketed between the two floats around
  ``e^(−ε)`` (the LP's optimum is monotone in ``α``: a larger ``α`` tightens every privacy row),
  and from an LP solve by ``optmech.bayesian_mechanism`` (its own certified interval);
* a remap that is not optimal must fail: its cost exceeds the optimum by a margin computed here.

No tolerance enters a verdict except the candidate's cost, compared to ``2e-12`` relative: the
two sums of ``(n + 1)²`` non-negative products differ by their roundings only (each within
``(n + 800)·2^-53`` relative, under 1e-13 for n ≤ 200).
"""

from __future__ import annotations

import json
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from _reference import g_plus_bayes_remap_exact

import optmech
from optmech.cli import main
from optmech.exceptions import InaccurateSolutionWarning
from optmech.theorems.certificate_rows import certificate_rows
from optmech.theorems.certificates import CERTIFICATE_ACCURACY, DualCertificate, grs_certificate

LOSS = {"abs": lambda e: np.abs(e), "squared": lambda e: e * e}


def dense_geometric(n: int, eps: float) -> np.ndarray:
    """``G`` of GRS §2 from its definition, entry by entry in numpy."""
    a = math.exp(-eps)
    i, j = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    g = a ** np.abs(i - j) * (1 - a) / (1 + a)
    g[:, 0] = a ** np.arange(n + 1) / (1 + a)
    g[:, n] = a ** (n - np.arange(n + 1)) / (1 + a)
    return g


def dense_cost(prior: np.ndarray, loss: str, eps: float, assignment: np.ndarray) -> float:
    n = prior.size - 1
    g = dense_geometric(n, eps)
    i = np.arange(n + 1)[:, None]
    terms = prior[:, None] * g * LOSS[loss](assignment[None, :] - i)
    return math.fsum(terms.ravel().tolist())


def dense_bayes(prior: np.ndarray, loss: str, eps: float) -> np.ndarray:
    n = prior.size - 1
    i = np.arange(n + 1)
    lm = LOSS[loss](i[None, :] - i[:, None]).astype(float)  # l(i, r) = c(r − i)
    return np.asarray(np.argmin(dense_geometric(n, eps).T @ (prior[:, None] * lm), axis=1))


def prior_of(kind: str, n: int, seed: int = 0) -> np.ndarray:
    if kind == "uniform":
        return np.full(n + 1, 1.0 / (n + 1))
    conc = {"dir1": 1.0, "dir02": 0.2}[kind]
    return np.random.default_rng(seed).dirichlet(np.full(n + 1, conc))


@pytest.mark.parametrize("kind", ["uniform", "dir1", "dir02"])
@pytest.mark.parametrize("loss", ["abs", "squared"])
@pytest.mark.parametrize("eps", [0.3, 1.0, 3.0])
def test_value_is_the_candidates_cost(kind: str, loss: str, eps: float) -> None:
    """The certified value is the dense cost of G + Bayes remap, rounded up (module docstring)."""
    prior = prior_of(kind, 60)
    cert = grs_certificate(prior, loss, eps)
    cost = dense_cost(prior, loss, eps, cert.assignment)
    assert cert.value >= cost * (1 - 2e-12)
    assert cert.value <= cost * (1 + 2e-12)
    # the remap is a Bayes remap: its cost is the dense argmin's (ties may differ)
    assert cost <= dense_cost(prior, loss, eps, dense_bayes(prior, loss, eps)) * (1 + 2e-12)
    assert cert.certified and cert.lower_bound <= cert.value


def dyadic_prior(n: int, seed: int) -> list[Fraction]:
    weights = np.random.default_rng(seed).integers(0, 8, size=n + 1)
    weights[0] += 1
    total = 1 << int(np.ceil(np.log2(weights.sum())))
    weights[-1] += total - weights.sum()  # dyadic: exact in floating point
    return [Fraction(int(w), total) for w in weights]


@pytest.mark.parametrize(("n", "loss", "eps", "seed"), [(6, "abs", 0.5, 0), (9, "squared", 1.3, 1)])
def test_interval_holds_the_exact_optimum(n: int, loss: str, eps: float, seed: int) -> None:
    """``lower_bound ≤ OPT(α_hi)`` and ``value ≥ OPT(α_lo)``, exactly (module docstring)."""
    prior = dyadic_prior(n, seed)
    lm = [[Fraction(int(LOSS[loss](np.array(r - i)))) for r in range(n + 1)] for i in range(n + 1)]
    a = math.exp(-eps)
    opt_lo = g_plus_bayes_remap_exact(prior, lm, Fraction(math.nextafter(a, 0.0)))
    opt_hi = g_plus_bayes_remap_exact(prior, lm, Fraction(math.nextafter(a, 1.0)))
    cert = grs_certificate(np.array([float(p) for p in prior]), loss, eps)
    assert Fraction(cert.lower_bound) <= opt_hi
    assert Fraction(cert.value) >= opt_lo
    assert cert.certified


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "loss", "n"), [("uniform", "abs", 120), ("dir02", "squared", 80)])
def test_interval_meets_the_lp_solve(kind: str, loss: str, n: int) -> None:
    """The LP optimum lies in both certified intervals, so they must intersect; the dual
    certificate is the narrower (no solver tolerance enters it)."""
    prior = prior_of(kind, n, seed=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InaccurateSolutionWarning)
        lp = optmech.bayesian_mechanism(prior, loss, 0.5, method="full")
    cert = grs_certificate(prior, loss, 0.5)
    assert cert.lower_bound <= lp.value and lp.lower_bound <= cert.value
    assert cert.gap <= max(lp.value - lp.lower_bound, 0.0) + 1e-12 * cert.value


def worst_shift(prior: np.ndarray, loss: str, eps: float, assignment: np.ndarray) -> np.ndarray:
    """The remap with one output answered one step off, where that costs the most."""
    best_bad, best_cost = assignment, -math.inf
    n = prior.size - 1
    for z in range(n + 1):
        for step in (-1, 1):
            if 0 <= assignment[z] + step <= n:
                bad = assignment.copy()
                bad[z] += step
                cost = dense_cost(prior, loss, eps, bad)
                if cost > best_cost:
                    best_bad, best_cost = bad, cost
    return best_bad


@pytest.mark.parametrize("kind", ["uniform", "dir02"])
@pytest.mark.parametrize("loss", ["abs", "squared"])
def test_a_suboptimal_remap_fails(kind: str, loss: str) -> None:
    """One output answered one step off: the certificate fails, names a violated dual row, and
    its lower bound stays below the optimum (weak duality holds for any multipliers)."""
    n, eps = 40, 0.7
    prior = prior_of(kind, n, seed=5)
    good = grs_certificate(prior, loss, eps)
    bad_remap = worst_shift(prior, loss, eps, good.assignment)
    excess = dense_cost(prior, loss, eps, bad_remap) - dense_cost(prior, loss, eps, good.assignment)
    assert excess > 1e-6 * good.value  # the perturbation matters (computed here)
    bad = grs_certificate(prior, loss, eps, assignment=bad_remap)
    assert not bad.certified
    assert bad.lower_bound <= good.value  # still a valid bound on the optimum
    assert bad.gap >= excess * (1 - 1e-9)
    assert bad.worst_violation > 0  # a dual row below its multiplier, and it is named
    i, r = bad.worst_row
    assert 0 <= i <= n and 0 <= r <= n
    assert f"x[{i}, {r}]" in bad.summary()


def test_a_failed_row_names_the_worst_dual_row() -> None:
    from optmech.theorems.certificate_rows import dual_certificate_row

    prior = prior_of("uniform", 30)
    good = grs_certificate(prior, "abs", 0.5)
    bad_remap = good.assignment.copy()
    bad_remap[15] += 2
    row = dual_certificate_row(grs_certificate(prior, "abs", 0.5, assignment=bad_remap), "x", "y")
    assert not row.passed and "NOT certified" in row.detail and "x[" in row.detail
    assert row.kind == "certificate" and row.lower_bound is not None


@pytest.mark.slow
def test_result_protocol() -> None:
    """value, lower_bound, gap, certified, summary, to_dict (plain JSON), plot, HTML."""
    import matplotlib

    matplotlib.use("Agg")
    cert = grs_certificate(prior_of("dir1", 25), "squared", 0.5)
    assert isinstance(cert, DualCertificate)
    assert cert.gap == cert.value - cert.lower_bound >= 0
    assert cert.accuracy == CERTIFICATE_ACCURACY
    data = cert.to_dict()
    assert json.loads(json.dumps(data, allow_nan=False)) == data
    assert data["certified"] is True and data["value"] == cert.value
    assert "certified" in cert.summary() and "<table" in cert._repr_html_()
    ax = cert.plot()
    assert ax.lines
    assert "DualCertificate(" in repr(cert)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"epsilon": -1.0}, "epsilon"),
        ({"loss": lambda e: -np.abs(e)}, "non-decreasing"),
        ({"accuracy": 0.0}, "accuracy"),
        ({"assignment": np.zeros(3, dtype=int)}, "assignment"),
        ({"assignment": np.full(11, 11)}, "assignment"),
        ({"prior": [1.0]}, "prior"),
    ],
)
def test_bad_input_raises(kwargs: dict, match: str) -> None:
    args = {"prior": np.full(11, 1 / 11), "loss": "abs", "epsilon": 1.0} | kwargs
    with pytest.raises(ValueError, match=match):
        grs_certificate(args.pop("prior"), args.pop("loss"), args.pop("epsilon"), **args)


def test_catalogue_rows_pass_and_state_their_gap() -> None:
    rows = certificate_rows(40)
    assert rows and all(r.passed for r in rows)
    assert all("gap" in r.detail and r.group == "certificates" for r in rows)


def test_cli_certificates(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--certificates", "--n", "20", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["passed"] and len(payload["rows"]) == 22
    assert main(["verify", "--n", "20"]) == 2  # --n belongs to --certificates
    assert main(["verify", "--certificates", "--exact"]) == 2


@pytest.mark.parametrize(
    ("conc", "loss", "eps"), [(0.05, "squared", 5.0), (0.05, "squared", 2.0), (1.0, "squared", 5.0)]
)
def test_spiky_priors_at_large_epsilon_certify(conc: float, loss: str, eps: float) -> None:
    """Priors with entries down to 1e-30 and e^ε up to 148: the regime where a transport that
    carries a deficit against its direction (times e^ε a step) would ruin the rounding. The
    certificate must still be decisive, and its interval must hold the candidate's dense cost."""
    prior = np.random.default_rng(1).dirichlet(np.full(151, conc))
    cert = grs_certificate(prior, loss, eps)
    cost = dense_cost(prior, loss, eps, cert.assignment)
    assert cert.certified
    assert cert.lower_bound <= cost * (1 + 2e-12) and cert.value >= cost * (1 - 2e-12)


# ------------------------------------------------------------------------------------------
# Minimax users (Gupte & Sundararajan 2010)
# ------------------------------------------------------------------------------------------
def dense_worst_risk(loss: str, eps: float, n: int, side: list[int], remap: np.ndarray) -> float:
    """``max_{i ∈ S} Σ_r (G T)[i, r] l(i, r)`` from the dense definition of G."""
    i = np.arange(n + 1)
    lm = LOSS[loss](i[None, :] - i[:, None]).astype(float)
    m = dense_geometric(n, eps) @ remap
    return max(math.fsum((m[s] * lm[s]).tolist()) for s in side)


@pytest.mark.slow
@pytest.mark.parametrize("loss", ["abs", "squared"])
@pytest.mark.parametrize("side", [None, [0, 15], [2, 9]])
def test_minimax_interval_meets_the_lp_solve(loss: str, side: list[int] | None) -> None:
    """The minimax LP over all ε-DP mechanisms (``optmech.minimax_mechanism``, an LP with the
    privacy rows) has its optimum in both certified intervals: they intersect."""
    from optmech.theorems.certificates import minimax_certificate

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InaccurateSolutionWarning)
        lp = optmech.minimax_mechanism(loss, 0.7, n=15, side_information=side)
    cert = minimax_certificate(loss, 0.7, n=15, side_information=side)
    assert cert.certified
    assert cert.lower_bound <= lp.value and lp.lower_bound <= cert.value


def test_minimax_a_suboptimal_remap_fails() -> None:
    """G reported as it is (the identity remap) is not the best for a user who only cares
    about the end points: its worst risk, computed here, exceeds the LP optimum, and the
    certificate fails while its lower bound stays below the optimum."""
    from optmech.theorems.certificates import minimax_certificate

    n, eps, side = 12, 1.0, [0, 12]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InaccurateSolutionWarning)
        lp = optmech.minimax_mechanism("abs", eps, n=n, side_information=side)
    identity = dense_worst_risk("abs", eps, n, side, np.eye(n + 1))
    assert identity > lp.value * (1 + 1e-3)  # the precondition, computed independently
    bad = minimax_certificate("abs", eps, n=n, side_information=side, remap=np.eye(n + 1))
    assert not bad.certified
    assert bad.value >= identity * (1 - 1e-12)
    assert bad.lower_bound <= lp.value


@pytest.mark.parametrize("n", [60, pytest.param(200, marks=pytest.mark.slow)])
@pytest.mark.parametrize("side", [None, "middle"])
def test_minimax_a_moved_answer_fails(n: int, side: str | None) -> None:
    """Past the remap LP's old size: a remap that answers the middle output two too high
    (S = all) or reports G as it is (two inputs in the middle) is worse than the certified
    optimum by a margin computed here densely, and fails."""
    from optmech.theorems.certificates import minimax_certificate

    eps = 1.0
    s = list(range(n + 1)) if side is None else [n // 2 - 3, n // 2 + 3]
    good = minimax_certificate("abs", eps, n=n, side_information=s)
    assert good.certified and good.lower_bound <= good.value
    moved = np.eye(n + 1)
    if side is None:
        moved[n // 2] = np.roll(moved[n // 2], 2)
    risk = dense_worst_risk("abs", eps, n, s, moved)
    assert risk > good.value * (1 + 1e-6)  # the precondition
    bad = minimax_certificate("abs", eps, n=n, side_information=s, remap=moved)
    assert not bad.certified
    assert bad.value >= risk * (1 - 1e-12)
    assert bad.lower_bound <= good.value


@pytest.mark.slow
@pytest.mark.parametrize("loss", ["abs", "squared"])
def test_minimax_interval_meets_the_lp_solve_at_n_60(loss: str) -> None:
    """The minimax LP over all ε-DP mechanisms at n = 60 (``optmech.minimax_mechanism``) has
    its optimum in the certificate's interval."""
    from optmech.theorems.certificates import minimax_certificate

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InaccurateSolutionWarning)
        lp = optmech.minimax_mechanism(loss, 1.0, n=60, side_information=[20, 40])
    cert = minimax_certificate(loss, 1.0, n=60, side_information=[20, 40])
    assert cert.certified
    assert cert.lower_bound <= lp.value and lp.lower_bound <= cert.value


@pytest.mark.slow
def test_minimax_certifies_at_n_1000() -> None:
    """S = all inputs on {0..1000}: beyond any dense remap LP; certified."""
    from optmech.theorems.certificates import minimax_certificate

    cert = minimax_certificate("abs", 0.5, n=1000)
    assert cert.certified and cert.lower_bound <= cert.value


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n": 10_001}, "n"),
        ({"side_information": [0, 11]}, "side_information"),
        ({"loss": lambda e: np.abs(e) - 1.0}, "non-negative"),
        ({"remap": np.eye(3)}, "remap"),
    ],
)
def test_minimax_bad_input_raises(kwargs: dict, match: str) -> None:
    from optmech.theorems.certificates import minimax_certificate

    args = {"loss": "abs", "epsilon": 1.0, "n": 10} | kwargs
    with pytest.raises(ValueError, match=match):
        minimax_certificate(args.pop("loss"), args.pop("epsilon"), **args)
