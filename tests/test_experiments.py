"""Tests of :mod:`optmech.experiments` and ``optmech experiment``: every experiment's quick run.

Each quick run writes a CSV with the documented columns, a valid PNG and a summary stating the
paper's numbers; the key numbers are checked against truth computed here independently
(closed forms of Geng & Viswanath (2016)/§3 written out in this file, the theorems' equalities).
"""

from __future__ import annotations

import csv
import math
import os
import stat
from pathlib import Path

import matplotlib.image
import numpy as np
import pytest

import optmech
from optmech.cli import main
from optmech.experiments import EXPERIMENTS, run_experiment

COLUMNS = {
    "staircase-gain": {"cost", "method", "epsilon", "staircase_cost", "laplace_cost", "ratio"},
    "gamma-star": {"cost", "epsilon", "gamma_star", "gamma_direct_min", "gamma_heuristic"},
    "lp-convergence": {"cost", "resolution", "lp_value", "closed_form", "gap"},
    "zero-delta": {"p", "method", "delta", "cost", "atom"},
    "grs-users": {"loss", "n", "epsilon", "lp_value", "geometric_remap_value"},
    "minimax-remaps": {"loss", "side_information", "lp_value", "geometric_randomized_remap_value"},
    "custom-loss-gallery": {"case", "mechanism", "expected_cost", "epsilon", "delta"},
    "zcdp-lattice": {"cost", "rho", "design_cost", "lower_bound", "discrete_gaussian_cost"},
    "gdp-lattice": {"cost", "mu", "design_cost", "lower_bound", "rounded_gaussian_cost"},
    "composition": {"noise", "k", "epsilon", "delta"},
    "noise-2d": {"study", "norm", "epsilon", "method", "cost", "ratio_to_staircase_nd"},
    "label-dp": {"dataset", "epsilon", "method", "mse", "lower_bound", "outputs_used"},
    "ldp-extremal": {"utility", "epsilon", "method", "value_nats", "fraction_of_optimum"},
    "shuffle-frontier": {"prior", "n", "epsilon", "method", "certified_epsilon", "bayes_mse"},
}


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    base = tmp_path_factory.mktemp("experiments")
    return {name: run_experiment(name, base / name, seed=0, quick=True) for name in EXPERIMENTS}


def _rows(path: object) -> list[dict[str, str]]:
    with open(path, newline="") as handle:  # type: ignore[call-overload]
        return list(csv.DictReader(handle))


def _abs_ratio(eps: float) -> float:
    # Laplace Δ/ε over V* = e^(ε/2)/(e^ε − 1) (Geng & Viswanath 2016).
    return (1.0 / eps) / (math.exp(eps / 2) / math.expm1(eps))


def _squared_ratio(eps: float) -> float:
    b = math.exp(-eps)
    u = (b * (1 + b) / 2) ** (1 / 3)
    return (2.0 / eps**2) / ((u * u + b) / (1 - b) ** 2)


@pytest.mark.parametrize("name", list(EXPERIMENTS))
def test_outputs(results: dict[str, object], name: str) -> None:
    res = results[name]
    rows = _rows(res.csv)  # type: ignore[attr-defined]
    assert len(rows) >= 3
    assert COLUMNS[name] <= set(rows[0])
    image = matplotlib.image.imread(res.figure)  # type: ignore[attr-defined]
    assert image.ndim == 3 and image.shape[0] > 200 and image.shape[1] > 200
    text = res.summary.read_text()  # type: ignore[attr-defined]
    assert text.startswith("# ") and ("Reproduces" in text or "Shows" in text)
    assert "Measured" in text
    leftovers = [p.name for p in res.out_dir.iterdir() if p.name.endswith(".tmp")]  # type: ignore[attr-defined]
    assert leftovers == []


def test_staircase_gain(results: dict[str, object]) -> None:
    res = results["staircase-gain"]
    h = res.headline  # type: ignore[attr-defined]
    assert h["ratio_abs_eps10"] == pytest.approx(_abs_ratio(10.0), rel=1e-9)
    assert h["ratio_squared_eps10"] == pytest.approx(_squared_ratio(10.0), rel=1e-9)
    assert round(h["ratio_abs_eps10"], 2) == 14.84
    assert round(h["ratio_squared_eps10"], 2) == 23.61
    text = res.summary.read_text()  # type: ignore[attr-defined]
    assert "14.84" in text and "23.61" in text
    for row in _rows(res.csv):  # type: ignore[attr-defined]
        eps = float(row["epsilon"])
        truth = _abs_ratio(eps) if row["cost"] == "abs" else _squared_ratio(eps)
        if row["method"] == "closed form":
            assert float(row["ratio"]) == pytest.approx(truth, rel=1e-8)
        else:  # LP value ≥ V* (solver tolerance 1e-9 relative), so its ratio ≤ the true one
            assert float(row["ratio"]) <= truth * (1 + 1e-9)
            assert float(row["ratio"]) >= 0.9 * truth


def test_gamma_star(results: dict[str, object]) -> None:
    rows = _rows(results["gamma-star"].csv)  # type: ignore[attr-defined]
    for row in rows:
        eps, g = float(row["epsilon"]), float(row["gamma_star"])
        assert 0.0 < g < 0.5
        if row["cost"] == "|e|":
            assert g == pytest.approx(1 / (1 + math.exp(eps / 2)), rel=1e-9)
        if row["cost"] == "e²":
            b = math.exp(-eps)
            u = (b * (1 + b) / 2) ** (1 / 3)
            assert g == pytest.approx((u - b) / (1 - b), rel=1e-7)
        if row["gamma_direct_min"] != "nan":  # independent bounded minimisation
            assert float(row["gamma_direct_min"]) == pytest.approx(g, abs=1e-5)
        assert float(row["cost_at_gamma_heuristic"]) >= float(row["cost_at_gamma_star"]) * (
            1 - 1e-12
        )


def test_lp_convergence(results: dict[str, object]) -> None:
    res = results["lp-convergence"]
    for row in _rows(res.csv):  # type: ignore[attr-defined]
        # The LP optimum is a certified mechanism's exact cost: never below V* (1e-9 rel for
        # the solver), and never above the staircase with γ* rounded to the grid (feasible).
        assert float(row["lp_value"]) >= float(row["closed_form"]) * (1 - 1e-9)
        assert float(row["gap"]) <= float(row["rounded_staircase_gap"]) + 1e-7
    # Gap ∝ (distance of γ* to the grid)² ≤ (1/(2m))²: the average slope is about −2.
    for key in ("slope_abs", "slope_squared"):
        assert -2.6 < res.headline[key] < -1.4  # type: ignore[attr-defined]


def test_zero_delta(results: dict[str, object]) -> None:
    res = results["zero-delta"]
    for p in (1, 2):
        # Bisection bracket of 0.65 / 2^7 around p/(p+1), plus one cell of slack.
        assert res.headline[f"threshold_p{p}"] == pytest.approx(p / (p + 1), abs=0.02)  # type: ignore[attr-defined]
    assert "p/(p+1)" in res.summary.read_text()  # type: ignore[attr-defined]
    for row in _rows(res.csv):  # type: ignore[attr-defined]
        p, d = int(row["p"]), float(row["delta"])
        alpha = 0.0 if d <= p / (p + 1) else (p + 1) * d - p
        closed = 1 / (2**p * (p + 1) * d**p) if alpha == 0.0 else ((p + 1) / (2 * p)) ** p * (1 - d)
        if row["method"].startswith("closed form"):
            assert float(row["cost"]) == pytest.approx(closed, rel=1e-9)
            assert float(row["atom"]) == pytest.approx(alpha, abs=1e-9)
        elif "class" in row["method"]:
            assert float(row["cost"]) >= closed * (1 - 1e-9)
            assert float(row["cost"]) == pytest.approx(closed, rel=1e-6)
        else:  # unrestricted: never above the class optimum
            assert float(row["cost"]) <= closed * (1 + 1e-9)


def test_grs_users(results: dict[str, object]) -> None:
    res = results["grs-users"]
    for row in _rows(res.csv):  # type: ignore[attr-defined]
        assert float(row["lp_value"]) == pytest.approx(
            float(row["geometric_remap_value"]), rel=1e-6, abs=1e-9
        )
    # Ghosh, Roughgarden & Sundararajan 2012, Fig. 2 worked example: outputs 0..5, 1 is answered as
    # 2.
    assert res.headline["worked_example_remap"] == "[0, 2, 2, 3, 4, 5]"  # type: ignore[attr-defined]


def test_minimax_remaps(results: dict[str, object]) -> None:
    for row in _rows(results["minimax-remaps"].csv):  # type: ignore[attr-defined]
        lp, ref = float(row["lp_value"]), float(row["geometric_randomized_remap_value"])
        assert lp == pytest.approx(ref, rel=2e-6, abs=1e-9)
        # A deterministic remap is one randomized remap: never better than the best one.
        assert float(row["geometric_deterministic_remap_value"]) >= ref * (1 - 1e-7) - 1e-12


def test_custom_loss_gallery(results: dict[str, object]) -> None:
    rows = _rows(results["custom-loss-gallery"].csv)  # type: ignore[attr-defined]
    by = {(r["case"], r["mechanism"]): float(r["expected_cost"]) for r in rows}
    # Asymmetric 3:1 cost: 2 E|X| of the best symmetric staircase at ε = 1, closed form.
    v_abs = math.exp(0.5) / math.expm1(1.0)
    assert by[("asymmetric", "LP design")] < 2 * v_abs
    assert by[("asymmetric", "staircase (optimal for |e|)")] == pytest.approx(2 * v_abs, rel=1e-9)
    # Laplace(1) threshold cost P(|X| > 0.5) = e^-0.5; the design can only do better.
    assert by[("threshold", "Laplace")] == pytest.approx(math.exp(-0.5), rel=1e-9)
    assert by[("threshold", "LP design")] <= math.exp(-0.5)
    design = by[("approx-dp", "LP design")]
    assert design < by[("approx-dp", "truncated Laplace")]
    assert design < by[("approx-dp", "analytic Gaussian")]
    certified = [
        float(r["delta"])
        for r in rows
        if r["case"] == "approx-dp" and r["mechanism"] == "LP design"
    ]
    assert certified and certified[0] <= 1e-2 * (1 + 1e-7)


def _lattice_gaussian(sigma: float, cost: str, rounded: bool) -> float:
    """E c(K) of N_ℤ(0, σ²) or round(N(0, σ²)), summed here over |k| ≤ 60σ."""
    from scipy import stats

    k = np.arange(-math.ceil(60 * sigma), math.ceil(60 * sigma) + 1, dtype=float)
    if rounded:
        p = stats.norm.cdf((k + 0.5) / sigma) - stats.norm.cdf((k - 0.5) / sigma)
    else:
        p = np.exp(-(k**2) / (2 * sigma**2))
    c = np.abs(k) if cost == "abs" else k * k
    return float(np.sum(p * c) / np.sum(p))


def test_zcdp_lattice(results: dict[str, object]) -> None:
    """The discrete Gaussian's cost recomputed here; the design never above it."""
    for row in _rows(results["zcdp-lattice"].csv):  # type: ignore[attr-defined]
        rho = float(row["rho"])
        dg = _lattice_gaussian(1 / math.sqrt(2 * rho), row["cost"], rounded=False)
        assert float(row["discrete_gaussian_cost"]) == pytest.approx(dg, rel=1e-12)
        assert float(row["lower_bound"]) <= float(row["design_cost"]) <= dg
        assert float(row["certified_rho"]) <= rho


def test_gdp_lattice(results: dict[str, object]) -> None:
    """The rounded Gaussian's cost recomputed here; the design within 1e-6 of it (the rounded
    Gaussian touches the GDP curve, test_lp_additive_beyond explains) and the certified lower
    bound below it."""
    for row in _rows(results["gdp-lattice"].csv):  # type: ignore[attr-defined]
        mu = float(row["mu"])
        ref = _lattice_gaussian(1 / mu, row["cost"], rounded=True)
        assert float(row["rounded_gaussian_cost"]) == pytest.approx(ref, rel=1e-12)
        assert float(row["lower_bound"]) <= ref
        assert float(row["design_cost"]) <= ref * (1 + 1e-6)
        assert float(row["certified_mu"]) <= mu


def test_composition(results: dict[str, object]) -> None:
    """One use of Laplace(1): δ(ε) = 1 − e^((ε − 1)/2) below ε = 1, 0 above (closed form); the
    quick run discretises losses by 1e-3, so δ may exceed it by that much, never fall below."""
    rows = _rows(results["composition"].csv)  # type: ignore[attr-defined]
    lap = [
        (float(r["epsilon"]), float(r["delta"]))
        for r in rows
        if r["k"] == "1" and r["noise"].startswith("Laplace")
    ]
    assert len(lap) >= 5
    for eps, delta in lap:
        want = -math.expm1(min(eps - 1.0, 0.0) / 2)
        assert want <= delta <= want + 1e-3


def test_seed_reproducible(tmp_path: object, results: dict[str, object]) -> None:
    again = run_experiment("grs-users", tmp_path / "again", seed=0, quick=True)  # type: ignore[operator]
    assert again.csv.read_text() == results["grs-users"].csv.read_text()  # type: ignore[attr-defined]
    other = run_experiment("grs-users", tmp_path / "other", seed=1, quick=True)  # type: ignore[operator]
    assert other.csv.read_text() != again.csv.read_text()


def test_cli(
    tmp_path: object, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # one line per experiment (a narrower width wraps)
    assert main(["experiment", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()[2:]  # under the header and its rule
    assert [line.split()[0] for line in lines] == list(EXPERIMENTS)
    assert all(line.rstrip().endswith(" s") for line in lines)  # a typical run time each
    assert main(["experiment", "no-such-thing"]) == 2
    err = capsys.readouterr().err
    assert "no-such-thing" in err and "staircase-gain" in err and "Traceback" not in err
    out = tmp_path / "gain"  # type: ignore[operator]
    assert main(["experiment", "gamma-star", "--quick", "--out", str(out)]) == 0
    assert (out / "summary.md").exists() and (out / "results.csv").exists()
    assert np.isfinite(matplotlib.image.imread(out / "figure.png")).all()


def test_bad_arguments(tmp_path: object) -> None:
    with pytest.raises(ValueError, match="`name` must be one of"):
        run_experiment("nope", tmp_path)
    with pytest.raises(ValueError, match="`seed` must be"):
        run_experiment("gamma-star", tmp_path, seed=-1)


def test_outputs_are_written_with_the_usual_permissions(tmp_path: Path) -> None:
    """Not 0600 (what a temporary file gets): 0666 less the process's umask."""
    mask = os.umask(0o022)
    try:
        result = run_experiment("gamma-star", tmp_path / "perm", quick=True)
    finally:
        os.umask(mask)
    for path in (result.csv, result.figure, result.summary):
        assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_an_unwritable_out_folder_is_refused_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    assert main(["experiment", "gamma-star", "--quick", "--out", str(blocker)]) == 2
    err = capsys.readouterr().err
    assert "`--out`" in err and "Traceback" not in err


def test_noise_2d(results: dict[str, object]) -> None:
    """The baselines' closed forms written out (V* = e^(ε/2)/(e^ε − 1), Laplace 2cΔ/ε with
    c = 1, √2, 2), and the LP between the marginal lower bound 2V*(ε) and the product of two
    staircases at ε/2 with their steps on the grid (a point of the LP: its certified lower
    bound cannot exceed it). The LP's value is within its certified gap (below 1e-6 relative,
    or a warning fails the run) of the cheapest staircase on the grid, another of its points."""
    res = results["noise-2d"]
    span = {"l1": 1.0, "l2": math.sqrt(2.0), "linf": 2.0}
    v = lambda e: math.exp(e / 2) / math.expm1(e)  # noqa: E731
    rows = [r for r in _rows(res.csv) if r["study"] == "methods"]  # type: ignore[attr-defined]
    assert {r["method"] for r in rows} == {
        "LP", "StaircaseND", "two 1-D staircases at ε/2", "product Laplace"
    }  # fmt: skip
    for r in rows:
        eps, cost = float(r["epsilon"]), float(r["cost"])
        if r["method"] == "product Laplace":
            assert cost == pytest.approx(2 * span[r["norm"]] / eps, rel=1e-12)
        elif r["method"] == "two 1-D staircases at ε/2":
            assert cost == pytest.approx(2 * v(eps / 2), rel=1e-12)
        elif r["method"] == "LP":
            m = int(r["resolution"])
            product = min(
                2 * optmech.Staircase(epsilon=eps / 2, gamma=g / m).expected_cost("abs")
                for g in range(1, m + 1)
            )
            assert cost >= 2 * v(eps)
            assert float(r["lower_bound"]) <= product
            assert float(r["certified_epsilon"]) <= eps * (1 + 1e-9)
    assert res.headline["max_lp_over_grid_staircase"] <= 1 + 1e-6  # type: ignore[attr-defined]


def test_label_dp(results: dict[str, object]) -> None:
    """Laplace ``2Δ²/ε²`` and the staircase's ``Δ²(u*² + b)/(1 − b)²``, ``u* = (b(1+b)/2)^(1/3)``
    (Geng & Viswanath 2016), written out; RR-on-Bins (optimal over real outputs, Ghazi et al.
    2023) below the grid LP, which is above it by at most h²/4 (randomised rounding, h the widest
    cell: 41 outputs over the labels' range in the quick run); the unbiased optimum never below
    RR-on-Bins."""
    rows = _rows(results["label-dp"].csv)  # type: ignore[attr-defined]
    for (name, eps), group in _groups(rows).items():
        mse = {r["method"]: float(r["mse"]) for r in group}
        lower = {r["method"]: float(r["lower_bound"]) for r in group}
        span = _diabetes_span() if name == "diabetes targets" else 11.0
        b = math.exp(-eps)
        u = (b * (1 + b) / 2) ** (1 / 3)
        assert mse["Laplace"] == pytest.approx(2 * span**2 / eps**2, rel=1e-12)
        assert mse["staircase"] == pytest.approx(span**2 * (u * u + b) / (1 - b) ** 2, rel=1e-9)
        h = span / 40  # 41 outputs over the labels' range
        assert mse["RR-on-Bins"] <= mse["LP optimum (grid)"] * (1 + 1e-12)
        assert lower["LP optimum (grid)"] <= mse["RR-on-Bins"] + h * h / 4
        assert lower["unbiased optimum"] >= mse["RR-on-Bins"]


def _diabetes_span() -> float:
    from sklearn.datasets import load_diabetes

    target = np.round(load_diabetes().target / 10.0) * 10.0
    return float(target.max() - target.min())


def _groups(rows: list[dict[str, str]]) -> dict[tuple[str, float], list[dict[str, str]]]:
    out: dict[tuple[str, float], list[dict[str, str]]] = {}
    for r in rows:
        out.setdefault((r["dataset"], float(r["epsilon"])), []).append(r)
    return out


def test_ldp_extremal(results: dict[str, object]) -> None:
    """No mechanism above the certified optimum (fraction ≤ 1 up to the bound's rounding); the
    binary mechanism optimal at the smallest ε and randomized response at the largest (Kairouz,
    Oh & Viswanath 2016), each within 1e-9 of the certified upper bound."""
    rows = _rows(results["ldp-extremal"].csv)  # type: ignore[attr-defined]
    assert all(float(r["fraction_of_optimum"]) <= 1 + 1e-12 for r in rows)
    eps = sorted({float(r["epsilon"]) for r in rows})
    for utility in ("mutual information", "KL divergence"):
        at = {
            (float(r["epsilon"]), r["method"]): float(r["fraction_of_optimum"])
            for r in rows
            if r["utility"] == utility
        }
        assert at[(eps[0], "binary mechanism")] >= 1 - 1e-9
        assert at[(eps[-1], "randomized response")] >= 1 - 1e-9


def test_shuffle_frontier(results: dict[str, object]) -> None:
    """Every accepted point certified at its target, recomputed here; each oracle's ε₀ the
    largest certified one (a step of 2e-3 up misses the target); GRR's Bayes error under the
    uniform prior equal to the law of total variance, Var X (1 − ((e^ε₀ − 1)/(e^ε₀ + 7))²)
    (its posterior mean is affine in the report); the ratio column the error over the best
    oracle's."""
    families = {
        "GRR": optmech.GRR,
        "OUE": optmech.OUE,
        "Hadamard response": optmech.HadamardResponse,
    }
    rows = _rows(results["shuffle-frontier"].csv)  # type: ignore[attr-defined]
    methods = {r["method"] for r in rows}
    assert {"LP design", *families} <= methods
    for r in rows:
        assert float(r["certified_epsilon"]) <= float(r["epsilon"])
        if r["method"] not in families:
            continue
        n, eps, eps0 = int(r["n"]), float(r["epsilon"]), float(r["local_epsilon"])
        family = families[r["method"]]
        assert optmech.shuffle_epsilon(family(8, eps0), n, 1e-6).epsilon <= eps
        if eps0 < 50.0 / 1.002:  # the oracles take ε₀ ≤ 50
            assert optmech.shuffle_epsilon(family(8, eps0 * 1.002), n, 1e-6).epsilon > eps
        if r["method"] == "GRR" and r["prior"] == "uniform":
            e = math.exp(eps0)
            want = 5.25 * (1 - ((e - 1) / (e + 7)) ** 2)
            assert float(r["bayes_mse"]) == pytest.approx(want, rel=1e-12)
    for r in rows:
        same = [
            s
            for s in rows
            if (s["prior"], s["n"], s["epsilon"]) == (r["prior"], r["n"], r["epsilon"])
        ]
        best = min(float(s["bayes_mse"]) for s in same if s["method"] in families)
        assert float(r["ratio_to_best_oracle"]) == pytest.approx(float(r["bayes_mse"]) / best)


def test_shuffle_frontier_bayes_error_against_a_remap_grid() -> None:
    """The posterior-mean error is below the Bayes remap onto a grid of answers with step h,
    and above it by at most h²/4 (each posterior mean is within h/2 of the grid)."""
    from optmech.experiments.shuffle_frontier import bayes_squared_error

    rng = np.random.default_rng(3)
    q = rng.dirichlet(np.ones(5), size=4)
    p = rng.dirichlet(np.ones(4))
    h = 1 / 64
    grid = np.arange(0.0, 3.0 + h / 2, h)
    remap = optmech.bayes_remap(q, p, "squared", outputs=grid).value
    ours = bayes_squared_error(q, p, np.arange(4.0))
    assert ours <= remap + 1e-12 and remap <= ours + h * h / 4 + 1e-12
    with pytest.raises(ValueError, match="`matrix` must have one row per label"):
        bayes_squared_error(q[:3], p, np.arange(4.0))


def test_shuffle_frontier_calibration() -> None:
    """The bisection against closed forms: ε₀/3 ≤ 0.5 up to ε₀ = 1.5; a certificate that never
    reaches the target stops at the largest ε₀ taken."""
    from optmech.experiments.shuffle_frontier import MAX_LOCAL_EPSILON, TOLERANCE, calibrate

    found = calibrate(lambda e0: e0 / 3, 0.5)
    assert found / 3 <= 0.5 and found * (1 + TOLERANCE) / 3 > 0.5
    assert calibrate(lambda e0: e0 / 3, 0.5, start=40.0) == pytest.approx(found, rel=TOLERANCE)
    assert calibrate(lambda e0: 1e-3 * e0, 0.5) == MAX_LOCAL_EPSILON


@pytest.mark.slow
def test_shuffle_frontier_is_deterministic(tmp_path: Path, results: dict[str, object]) -> None:
    again = run_experiment("shuffle-frontier", tmp_path / "again", seed=1, quick=True)
    assert again.csv.read_text() == results["shuffle-frontier"].csv.read_text()  # type: ignore[attr-defined]
