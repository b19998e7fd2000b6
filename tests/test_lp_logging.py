"""Logging and progress of the LP designers and user LPs: silent by default, INFO records of the
stages with the LP's sizes, the solver's own log at DEBUG, ``verbose`` and ``progress``."""

from __future__ import annotations

import logging
import time

import numpy as np
import pytest

import optmech
from optmech.lp.additive import AdditiveSpec, build_additive_lp

KW = {"sensitivity": 1.0, "cost": "abs", "resolution": 10, "periods": 3}


def _stages(caplog: pytest.LogCaptureFixture) -> list[dict]:
    return [r.optmech for r in caplog.records if hasattr(r, "optmech")]


def test_nothing_is_printed_by_default(capfd: pytest.CaptureFixture[str]) -> None:
    """No handler but a NullHandler on the library's logger, and nothing on stdout or stderr
    (the solvers' own output included)."""
    optmech.design_noise(optmech.PureDP(1.0), solver="HIGHS", **KW)
    optmech.bayesian_mechanism(np.full(5, 0.2), "abs", 0.5, solver="CLARABEL")
    out, err = capfd.readouterr()
    assert out == "" and err == ""
    handlers = logging.getLogger("optmech").handlers
    assert handlers and all(isinstance(h, logging.NullHandler) for h in handlers)


def test_a_design_logs_its_stages_with_the_lps_size(caplog: pytest.LogCaptureFixture) -> None:
    """build → solve → certify → repair → certify, in order; the build's sizes are those of the
    LP built again here (variables, its rows plus the normalisation, the stored coefficients)."""
    caplog.set_level(logging.INFO, logger="optmech")
    start = time.perf_counter()
    noise = optmech.design_noise(optmech.PureDP(1.0), solver="HIGHS", **KW)
    elapsed = time.perf_counter() - start
    stages = _stages(caplog)
    names = [s["stage"] for s in stages]
    assert names == ["build", "solve", "certify", "repair", "certify", "design_noise"]
    lp = build_additive_lp(AdditiveSpec(optmech.PureDP(1.0), **KW))
    build = stages[0]
    assert build["variables"] == lp.num_variables == noise.provenance.num_variables
    assert build["rows"] == lp.a_ub.shape[0] + 1
    assert build["nonzeros"] == lp.a_ub.nnz + np.count_nonzero(lp.mass)
    solve = stages[1]
    assert (solve["solver"], solve["status"]) == ("HIGHS", "optimal")
    assert stages[3]["kind"] == str(noise.repair.kind)
    inner = sum(s["seconds"] for s in stages[:-1])  # sequential stages inside the whole run
    assert 0.0 < inner <= stages[-1]["seconds"] <= elapsed
    assert stages[-1]["value"] == noise.value
    assert {r.name for r in caplog.records} >= {"optmech.lp.solve", "optmech.lp.additive.designer"}


def test_a_user_lp_logs_its_stages(caplog: pytest.LogCaptureFixture) -> None:
    """The Bayesian LP of a count query on ``{0..n}``: ``(n+1)²`` variables (no reduction),
    ``n + 1`` row sums and ``2n(n+1)`` privacy rows (both directions of the ``n`` edges, one per
    output), two entries in each privacy row and one per variable in the row sums."""
    n = 4
    caplog.set_level(logging.INFO, logger="optmech")
    optmech.bayesian_mechanism(
        np.full(n + 1, 0.2), "abs", 0.5, reduce_symmetric=False, method="full"
    )
    stages = _stages(caplog)
    assert [s["stage"] for s in stages][:3] == ["build", "solve", "certify"]
    build = stages[0]
    privacy_rows = 2 * n * (n + 1)
    assert build["variables"] == (n + 1) ** 2
    assert build["rows"] >= (n + 1) + privacy_rows
    assert build["nonzeros"] == (n + 1) ** 2 + 2 * privacy_rows


def test_the_solvers_log_is_on_debug(caplog: pytest.LogCaptureFixture) -> None:
    """At DEBUG on ``optmech.lp.solve`` the solver's own lines (HiGHS names itself in them) and
    cvxpy's arrive as records; at INFO they do not."""
    caplog.set_level(logging.INFO, logger="optmech")
    optmech.design_noise(optmech.PureDP(1.0), solver="HIGHS", **KW)
    assert not any("HiGHS" in r.getMessage() for r in caplog.records)
    caplog.clear()
    caplog.set_level(logging.DEBUG, logger="optmech.lp.solve")
    optmech.design_noise(optmech.PureDP(1.0), solver="HIGHS", **KW)
    debug = [r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG]
    assert any("HiGHS" in m for m in debug) and any(m.startswith("cvxpy:") for m in debug)


def test_verbose_logs_the_stages_to_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    logger = logging.getLogger("optmech")
    level, handlers = logger.level, list(logger.handlers)
    optmech.design_noise(optmech.PureDP(1.0), solver="HIGHS", verbose=True, **KW)
    out, err = capfd.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert any("build: variables=" in line for line in lines)
    assert any("solve: solver=HIGHS" in line for line in lines)
    assert not any("HiGHS" in line for line in lines)  # the solver's log stays on DEBUG
    assert logger.level == level and logger.handlers == handlers  # restored


def test_progress_draws_a_bar_on_stderr(capfd: pytest.CaptureFixture[str]) -> None:
    optmech.dependent_noise_lp(1.0, sensitivity=2, period=2, progress=True)
    out, err = capfd.readouterr()
    assert out == "" and "optmech" in err and "step" in err


def test_progress_must_be_a_flag() -> None:
    with pytest.raises(TypeError, match="`progress` must be True or False; got 'yes'"):
        optmech.design_noise(optmech.PureDP(1.0), progress="yes", **KW)


def test_column_generation_logs_its_rounds(caplog: pytest.LogCaptureFixture) -> None:
    """Column generation logs each round with its objective and bound (the bound never above
    the objective), then the certificate."""
    caplog.set_level(logging.INFO, logger="optmech")
    optmech.bayesian_mechanism(np.full(41, 1 / 41), "abs", 0.5, method="column-generation")
    stages = _stages(caplog)
    rounds = [s for s in stages if s["stage"] == "column generation round"]
    assert rounds
    assert all(r["bound"] <= r["objective"] + 1e-9 for r in rounds)
    assert stages[-1]["stage"] == "certify"
