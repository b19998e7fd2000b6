"""``benchmarks.noise``: the page's bands of run-to-run noise and the check of a new run.

Independent truth: reports written here with known seconds and values, so each band's ratios,
each figure outside its band, each case missing and each changed value are known in advance;
the tail model's edge against the closed-form quantile of a Laplace law; and the check's
false-failure rate simulated on runs drawn from a known law of noise."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from benchmarks import compare, noise, page


def _report(rows: list[dict[str, Any]], started: str = "2026-01-01 00:00:00") -> dict[str, Any]:
    return {"rows": rows, "started": started, "command": "python -m benchmarks --repeat 1"}


def _case(m: int, total: float, value: float = 1.0) -> dict[str, Any]:
    return {"section": "additive", "m": m, "solver": "HIGHS", "total": total, "value": value}


def _runs(seconds: np.ndarray) -> list[dict[str, Any]]:
    """One report per row of ``seconds`` (runs × cases), case j named m = j."""
    return [_report([_case(j, float(s)) for j, s in enumerate(run)]) for run in seconds]


def test_the_noise_comes_from_every_pair_of_runs_that_computed_the_pages_values() -> None:
    here = _report([_case(j, 0.5) for j in range(10)] + [_case(99, 3.0)])
    a = _report([_case(j, 0.5 * 1.1) for j in range(10)] + [_case(99, 9.0, value=2.0)])
    b = _report([_case(j, 0.5 / 1.2) for j in range(10)] + [_case(99, 4.0)])
    found = {(x.low_s, x.figures, x.pairs): x.largest for x in noise.bands(here, [a, b])}
    # 10 cases x 3 pairs; the largest ratio is 1.1 * 1.2 (a over b). m = 99 has only one pair
    # (a ran other code there), fewer than MIN_RATIOS: its class states no band.
    assert found == {(0.1, 10, 30): pytest.approx(1.32)}


def test_the_tail_edge_matches_the_laplace_quantile() -> None:
    # |Laplace(0, b)| is exponential: P(|X| > t) = exp(-t / b), so `trials` draws cross t once
    # on average at t = b log(trials). The mean excess estimates b to about 1 / sqrt(20 000)
    # = 0.7 %, so the 5 % allowed is 7 standard errors.
    b, trials = 0.2, 1e7  # beyond the largest of the 200 000 draws (about b log 2e5)
    x = np.abs(np.random.default_rng(5).laplace(0.0, b, size=200_000))
    assert noise._tail_edge(x, trials) == pytest.approx(b * math.log(trials), rel=0.05)
    # Never inside the values it was measured from.
    assert noise._tail_edge(x, 1.0) == x.max()


def test_a_run_as_noisy_as_the_pages_runs_fails_rarely_and_the_range_seen_would_not() -> None:
    # 4 runs of 200 cases (0.3-0.7 s, one class) with Laplace noise of scale 0.08 on the log
    # seconds, then 400 new runs drawn alike, each checked against the first run. The band's
    # false-failure rate is ALPHA = 0.05 under the model, plus what estimating the tail from
    # 4 runs adds: 0.07 measured with this seed (binomial sd 0.013 over 400 runs), 0.15
    # allowed. A band of the largest ratio seen fails 0.27 of them.
    rng = np.random.default_rng(11)
    true = rng.uniform(0.3, 0.7, size=200)

    def runs(count: int) -> np.ndarray:
        return true * np.exp(rng.laplace(0.0, 0.08, size=(count, true.size)))

    seconds = runs(4)
    reports = _runs(seconds)
    table = noise.bands(reports[0], reports[1:])
    assert len(table) == 1 and table[0].figures == 200 and table[0].pairs == 1200
    failed = seen = 0
    for run in runs(400):
        lines, compared = noise.outside(table, reports[0], _runs(run[None, :])[0])
        assert compared == 200
        failed += bool(lines)
        ratio = np.abs(np.log(run / seconds[0]))
        seen += bool(ratio.max() > math.log(table[0].largest))
    assert failed / 400 <= 0.15
    assert seen / 400 >= 0.2


def test_a_new_run_is_checked_against_the_bands_and_its_values(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    seconds = 0.5 * np.exp(rng.laplace(0.0, 0.05, size=(3, 30)))
    reports = _runs(seconds)
    table = noise.bands(reports[0], reports[1:])
    assert len(table) == 1 and 1.0 < table[0].largest <= table[0].factor < 10.0
    # m = 0: the page's seconds; m = 1: ten times them; m = 2: the page's, its value moved.
    here = seconds[0]
    new = _report([_case(0, here[0]), _case(1, 10 * here[1]), _case(2, here[2], value=1 + 1e-6)])
    outside, changed, compared = noise.check(reports[0], reports[1:], new)
    assert compared == 3
    found = [line for line in outside if not line.startswith("missing: ")]
    assert len(found) == 1 and "m=1" in found[0] and found[0].startswith("10.000")
    assert len(outside) == 1 + 27  # m = 3 ... 29 are missing from the new run
    assert len(changed) == 1 and "m=2" in changed[0] and "value" in changed[0]
    paths = []
    for i, rep in enumerate([*reports, new]):
        paths.append(tmp_path / f"run{i}.json")
        paths[-1].write_text(json.dumps(rep), encoding="utf-8")
    runs = [str(p) for p in paths[:3]]
    assert noise.main(["--page-runs", *runs, "--new", str(paths[3])]) == 1
    assert noise.main(["--page-runs", *runs, "--new", runs[1]]) == 0


def test_a_class_measured_too_little_states_no_band_and_its_cases_fail() -> None:
    here = _report([_case(1, 0.5), _case(2, 20.0)])
    other = _report([_case(1, 0.6), _case(2, 18.0)])
    assert noise.bands(here, [other]) == []  # 2 ratios a class, fewer than MIN_RATIOS
    outside, _, compared = noise.check(here, [other], here)
    assert compared == 2 and all("no band" in line for line in outside)


def test_every_measured_figure_of_a_row_is_read_with_its_kind() -> None:
    row = {
        "section": "grs", "n": 50, "solver": "HIGHS", "runs": 3, "load": 1.2, "load_min": 1.0,
        "total": 0.5, "total_median": 0.5, "total_min": 0.4, "build": 0.01, "build_min": 0.01,
        "wall_median": 2.0, "load_median": 0.003, "qif_total": 3.0, "peak_rss_mb": 150.0,
        "solve_mb": 20.0, "samples_per_s": 1e7, "pipeline_over_direct": 1.1,
        "time_exponent": 1.9, "largest_estimate": 5e5, "crossover_variables": 325,
        "worst_seed": 3, "value": 1.8, "value_median": 1.8, "iterations": 700,
        "status": "optimal", "times": {"exact": 0.2}, "bounds": {"exact": 0.03},
    }  # fmt: skip
    kinds = {name: kind for name, (kind, _) in noise.figures(row).items()}
    assert kinds == {
        "total": "seconds", "total_min": "seconds", "build": "seconds", "build_min": "seconds",
        "wall": "seconds",
        "load": "seconds", "qif_total": "seconds", "times.exact": "seconds",
        "peak_rss_mb": "memory", "solve_mb": "memory above the imports",
        "samples_per_s": "rate", "pipeline_over_direct": "ratio", "time_exponent": "ratio",
        "largest_estimate": "ratio",
    }  # fmt: skip
    # The median of a highspy phase called "load" is seconds; the load average is no figure.
    assert noise.figures(row)["load"] == ("seconds", 0.003)
    moved = {**row, "value_median": 1.9, "bounds": {"exact": 0.04}, "iterations": 701}
    assert sorted(noise._changed(row, moved)) == ["bounds.exact", "iterations", "value_median"]
    assert noise._changed(row, {**row, "status": noise.TIMEOUT}) == []  # a stop, not a value
    # Run once, a field's minimum is that run: no figure of its own.
    assert "total_min" not in noise.figures({**row, "runs": 1})


def test_a_figure_the_new_run_lacks_is_missing_unless_a_peer_stopped() -> None:
    rows = [{**_case(m, 0.5), "qif_total": 2.0, "qif_status": "ok"} for m in range(10)]
    here, *others = (_report([dict(r) for r in rows]) for _ in range(3))
    table = noise.bands(here, others)
    lacking = [dict(r) for r in rows]
    del lacking[1]["qif_total"]
    del lacking[2]["qif_total"]
    lacking[2]["qif_status"] = noise.TIMEOUT
    lines, _ = noise.outside(table, here, _report(lacking))
    assert lines == ["missing: qif_total of section=additive, m=1, solver=HIGHS"]


def _long(m: int, total: float, timeout: bool = False) -> dict[str, Any]:
    """A 2-D ladder case; stopped at its 90 s limit, it reports no solver (as the harness)."""
    if timeout:
        return {"section": "additive2d", "kind": "ladder", "m": m, "status": noise.TIMEOUT,
                "timeout_s": 90.0}  # fmt: skip
    return {"section": "additive2d", "kind": "ladder", "m": m, "solver": "HIGHS",
            "status": "optimal", "total": total}  # fmt: skip


def test_a_case_stopped_at_its_limit_agrees_when_the_band_reaches_the_limit() -> None:
    rng = np.random.default_rng(13)
    seconds = np.array([20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 85.0, 12.0, 15.0])
    runs = seconds * np.exp(rng.laplace(0.0, 0.05, size=(3, seconds.size)))
    here, *others = (_report([_long(m, float(t)) for m, t in enumerate(run)]) for run in runs)
    here["rows"].append(_long(99, 0.0, timeout=True))  # the page's ladder stopped here
    (band,) = noise.bands(here, others)
    assert band.low_s == 10.0 and 1.0 < band.factor < 90.0 / runs[0][1]
    new = _report(
        [_long(0, runs[0][0]), _long(1, 0.0, timeout=True), _long(6, 0.0, timeout=True)]
        + [_long(m, float(runs[0][m])) for m in (2, 3, 4, 5, 7)]
    )
    lines, _ = noise.outside([band], here, new)
    # m = 1 (about 30 s here) cannot reach 90 s within the band; m = 6 (about 80 s) can;
    # m = 8 and 9 are missing; m = 99, stopped here, need not be there.
    assert sorted(lines) == sorted(
        [
            f"stopped at its limit in one run only ({runs[0][1]:.4g} s against a stop at 90 s): "
            "section=additive2d, kind=ladder, m=1, solver=HIGHS",
            "missing: section=additive2d, kind=ladder, m=8, solver=HIGHS",
            "missing: section=additive2d, kind=ladder, m=9, solver=HIGHS",
        ]
    )


def test_a_shuffle_case_is_named_by_its_parameters_not_its_result() -> None:
    row = {"section": "shuffle", "k": 32, "eps0": 4.0, "n": 10_000, "epsilon": 0.32,
           "method": "variation-ratio", "total": 0.3}  # fmt: skip
    again = {**row, "epsilon": 0.31, "method": "blanket"}
    assert compare.case_of(row) == compare.case_of(again)
    assert dict(compare.case_of(row)) == {"section": "shuffle", "k": 32, "eps0": 4.0, "n": 10_000}


def test_the_page_states_its_noise_and_how_to_check_a_rerun() -> None:
    rng = np.random.default_rng(7)
    here, *others = _runs(0.5 * np.exp(rng.laplace(0.0, 0.05, size=(3, 30))))
    here.update(mode="full", load_start=1.0, load_end=1.0, versions={}, repeat=1)
    others[1]["started"] = "2026-01-02 00:00:00"
    text = "\n".join(noise.page_lines(here, others))
    (band,) = noise.bands(here, others)
    assert "2026-01-02 00:00:00" in text and "left out" not in text
    assert f"| 0.1–1 s | 30 | 90 | {band.largest:.2f} | {band.range()} |" in text
    assert f"--page-runs {noise.PAGE_RUNS} --new" in text
    # A case whose computed value changed ran other code: it is left out.
    others[0]["rows"][0]["value"] = 3.0
    again = "\n".join(noise.page_lines(here, others))
    assert "1 cases computed other values in another run (sections: additive)" in again
    assert "| 0.1–1 s | 30 | 88 |" in again  # m = 0 keeps one pair of its three
    assert (
        page.rerun_command(
            {"command": "python -m benchmarks --repeat 1 --out r --page docs/p.md --noise a.json"}
        )
        == "python -m benchmarks --repeat 1 --out benchmark-results"
    )


def test_the_runs_kept_as_reproductions_reproduce_the_page() -> None:
    # Runs of the page's command on fresh clones, made after the page and its rule were
    # committed, kept as measured (benchmarks/results/reproduced): each passes the check.
    root = Path(__file__).resolve().parents[1]
    page_run = root / "benchmarks/results/run/benchmarks.json"
    others = sorted((root / "benchmarks/results/noise").glob("*.json"))
    kept = sorted((root / "benchmarks/results/reproduced").glob("*.json"))
    assert kept and others
    assert noise.PAGE_RUNS.split() == [
        "benchmarks/results/run/benchmarks.json", "benchmarks/results/noise/*.json"
    ]  # fmt: skip
    for run in kept:
        outside, changed, compared = noise.check(page_run, others, run)
        assert (outside, changed) == ([], []) and compared > 1000, run.name
