"""Progress a user can read: the long-running designers take ``progress=`` and log their stages
(name, sizes, seconds) on the ``optmech`` logger; a bar has a total where the call knows it,
and a ticker thread redraws it while a solver blocks (so its elapsed time moves), stopped on
the way out. No assertion here is about time."""

from __future__ import annotations

import io
import logging
import math
import sys
import threading
from typing import Any

import numpy as np
import pytest

import optmech
from optmech.lp.engine.report import reporting, set_total, tick, ticking
from optmech.utilities import MutualInformation


def _stages(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    return [r.optmech for r in caplog.records if hasattr(r, "optmech")]


def _tickers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "optmech-progress"]


class _Bar:
    """Says when it was first asked to redraw."""

    def __init__(self) -> None:
        self.redrawn = threading.Event()

    def refresh(self) -> None:
        self.redrawn.set()


def test_the_ticker_redraws_while_the_body_blocks_then_stops() -> None:
    bar = _Bar()
    with ticking(bar, seconds=0.001) as thread:
        # The body blocks (as a solve does); only the ticker can redraw meanwhile.
        assert bar.redrawn.wait(timeout=60)
        assert thread.is_alive()
    assert not thread.is_alive()  # stopped and joined: nothing redraws after the body


def test_the_ticker_stops_when_the_body_raises() -> None:
    bar = _Bar()
    with pytest.raises(RuntimeError, match="solver"), ticking(bar, seconds=0.001) as thread:
        raise RuntimeError("solver")
    assert not thread.is_alive()


def test_a_bar_shows_its_total_when_known(monkeypatch: pytest.MonkeyPatch) -> None:
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    with reporting(progress=True, what="job", total=3):
        tick("first")
        set_total(4)  # found later: the bar takes it (and is redrawn)
        tick("second")
    text = err.getvalue()
    assert "optmech job" in text and "0/3" in text and "1/4" in text
    assert _tickers() == []


def test_a_reported_call_is_redrawn_while_it_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing advances the bar inside the body (a blocking solve); it is drawn again anyway,
    with its elapsed time."""
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    with reporting(progress=True, what="blocking"):
        drawn = err.getvalue()
        assert "optmech blocking" in drawn and "00:00" in drawn
        for _ in range(1200):  # at most about a minute; a redraw comes after TICK_SECONDS
            if err.getvalue() != drawn:
                break
            threading.Event().wait(0.05)
        assert err.getvalue() != drawn
    assert _tickers() == []


def test_no_bar_no_ticker(monkeypatch: pytest.MonkeyPatch) -> None:
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    with reporting(progress=False, total=3):
        set_total(5)
        tick("nothing")
        assert _tickers() == []
    assert err.getvalue() == ""


@pytest.mark.slow
def test_local_mechanism_logs_its_stages_and_draws_a_bar(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    caplog.set_level(logging.INFO, logger="optmech")
    outputs = [0.0, 0.25, 0.5, 0.75, 1.0]
    res = optmech.local_mechanism(
        [0.5, 0.5], "squared", math.log(3.0), inputs=[0.0, 1.0], outputs=outputs, progress=True
    )
    stages = _stages(caplog)
    names = [s["stage"] for s in stages]
    assert "solve" in names  # each solver attempt
    (lp,) = [s for s in stages if s["stage"] == "local LP"]
    assert (lp["inputs"], lp["outputs"], lp["constraints"]) == (2, len(outputs), 0)
    assert lp["seconds"] >= 0 and lp["value"] == res.value
    assert "optmech local_mechanism" in err.getvalue()
    assert _tickers() == []


def test_extremal_mechanism_logs_its_stages(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="optmech")
    res = optmech.extremal_mechanism(MutualInformation([0.2, 0.3, 0.5]), 1.0)
    stages = _stages(caplog)
    (lp,) = [s for s in stages if s["stage"] == "pattern LP"]
    assert (lp["inputs"], lp["patterns"]) == (3, 2**3)
    (cert,) = [s for s in stages if s["stage"] == "certify"]
    assert (cert["value"], cert["upper_bound"]) == (res.value, res.upper_bound)
    assert cert["outputs"] == res.mechanism.shape[1]


@pytest.mark.parametrize("designer", ["local", "extremal"])
def test_progress_must_be_a_flag(designer: str) -> None:
    with pytest.raises(TypeError, match="`progress` must be True or False; got 'yes'"):
        if designer == "local":
            optmech.local_mechanism([0.5, 0.5], "abs", 1.0, inputs=[0, 1], progress="yes")  # type: ignore[arg-type]
        else:
            optmech.extremal_mechanism(MutualInformation([0.5, 0.5]), 1.0, progress="yes")  # type: ignore[arg-type]


def test_column_generation_logs_its_warm_start(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    caplog.set_level(logging.INFO, logger="optmech")
    n = 41
    optmech.bayesian_mechanism(
        np.full(n, 1 / n), "abs", 0.5, method="column-generation", progress=True
    )
    stages = _stages(caplog)
    (start,) = [s for s in stages if s["stage"] == "warm start"]
    assert (start["inputs"], start["outputs"]) == (n, n)
    assert start["scale"] > 0
    assert any(s["stage"] == "column generation round" for s in stages)
    assert "optmech" in err.getvalue()
    assert _tickers() == []


@pytest.mark.slow
def test_the_catalogue_bar_counts_to_its_total(monkeypatch: pytest.MonkeyPatch) -> None:
    from optmech.theorems.catalogue import run_checks

    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    names = ["staircase γ* closed form", "staircase V* closed form"]
    ran = list(run_checks(names=names, progress=True))
    text = err.getvalue()
    assert len(ran) == 2 and "0/2" in text and "2/2" in text
    assert _tickers() == []


def test_cutting_plane_rounds_are_numbered_with_their_sizes(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    caplog.set_level(logging.INFO, logger="optmech")
    noise = optmech.design_noise(
        optmech.ZCDP(0.5), sensitivity=1, cost="abs", integer=True, progress=True
    )
    rounds = [s for s in _stages(caplog) if s["stage"] == "round"]
    assert [r["round"] for r in rounds] == list(range(1, len(rounds) + 1))
    assert all(r["variables"] > 0 and r["seconds"] >= 0 for r in rounds)
    assert noise.certified_rho <= 0.5
    assert "optmech design_noise" in err.getvalue()
    assert _tickers() == []


def test_a_design_in_the_plane_logs_its_stages(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="optmech")
    optmech.design_noise(
        optmech.PureDP(1.0),
        sensitivity=1.0,
        cost="l1",
        dimension=2,
        sensitivity_norm="l2",
        resolution=2,
        periods=2,
    )
    stages = _stages(caplog)
    (build,) = [s for s in stages if s["stage"] == "build"]
    assert build["variables"] > 0 and build["rows"] > 0
    names = [s["stage"] for s in stages]
    assert {"solve", "certify"} <= set(names) and names[-1] == "design_noise"
