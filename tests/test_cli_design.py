"""`optmech design`: output, JSON, closed-form comparison, plot, and clean errors.

References are the papers' closed forms (Geng & Viswanath 2016; Geng, Ding, Guo & Kumar
2019), computed here.
"""

from __future__ import annotations

import json
import math
import shlex

import pytest

from optmech.cli import main
from optmech.privacy import ApproxDP, PureDP, parse_privacy


def _run(command: str) -> int:
    """The exit status of ``optmech COMMAND`` (a command line, split as a shell would)."""
    return main(shlex.split(command))


def _json(capsys: pytest.CaptureFixture[str], command: str) -> dict:
    assert _run(command) == 0
    return json.loads(capsys.readouterr().out)


def test_pure_dp_table_compares_with_the_staircase(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run("design --privacy eps=1 --sensitivity 1 --cost abs --resolution 8 --periods 2") == 0
    out = capsys.readouterr().out
    for word in ("lower_bound", "staircase optimum", "relative_gap", "certified ε", "solver"):
        assert word in out
    assert any(line.split()[:1] == ["value"] for line in out.splitlines()[2:])


def test_pure_dp_json_value_bounds(capsys: pytest.CaptureFixture[str]) -> None:
    res = _json(capsys, "design --privacy eps=1 --resolution 8 --periods 2 --json")
    v_star = math.exp(0.5) / (math.e - 1)  # Geng & Viswanath (2016)
    assert v_star * (1 - 1e-9) <= res["lp_value"] <= v_star * 1.001
    assert res["reference_value"] == pytest.approx(v_star, rel=1e-9)
    assert res["certified_epsilon"] <= 1 + 1e-9 and res["status"] == "optimal"


def test_zero_delta_against_uniform_plus_atom(capsys: pytest.CaptureFixture[str]) -> None:
    command = "design --privacy delta=0.25 --cost squared --resolution 12 --symmetric --monotone"
    res = _json(capsys, f"{command} --json")
    closed = 1 / (4 * 3 * 0.25**2)  # Δ²/(2^p (p+1) δ^p), Geng et al. (2019)
    assert res["lp_value"] == pytest.approx(closed, rel=1e-9)
    assert res["reference_value"] == pytest.approx(closed, rel=1e-9)
    assert "symmetric non-increasing" in res["reference"]
    assert res["certified_delta"] <= 0.25 * (1 + 1e-9)


def test_approx_dp_lists_baselines(capsys: pytest.CaptureFixture[str]) -> None:
    res = _json(capsys, "design --privacy eps=1,delta=1e-3 --resolution 8 --json")
    assert res["lp_value"] < res["truncated Laplace cost"] < res["Gaussian (analytic) cost"]
    assert res["reference_value"] is None


def test_integer_reference_point(capsys: pytest.CaptureFixture[str]) -> None:
    res = _json(capsys, "design --privacy eps=1 --integer --sensitivity 5 --cost squared --json")
    assert res["lp_value"] == pytest.approx(48.0337, abs=5e-5)  # Geng & Viswanath (2016), discrete
    assert res["relative_gap"] == pytest.approx(0.0, abs=1e-9)


def test_plot_is_written(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "design.png"
    command = "design --privacy delta=0.6 --resolution 6 --symmetric --monotone"
    assert _run(f"{command} --plot {shlex.quote(str(path))}") == 0
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert str(path) in capsys.readouterr().out
    integer = tmp_path / "integer.png"
    assert (
        _run(f"design --privacy eps=1 --integer --sensitivity 2 --plot {shlex.quote(str(integer))}")
        == 0
    )
    assert integer.stat().st_size > 1000


@pytest.mark.parametrize(
    "command",
    [
        "design --privacy eps=x",
        "design --privacy gamma=1",
        "design --privacy eps=1,eps=2",
        "design --privacy eps=-1",
        "design --privacy eps=1 --cost nope",
        "design --privacy eps=1 --resolution 0",
        "design --privacy eps=1 --integer --sensitivity 1.5",
    ],
)
def test_bad_arguments_exit_two(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(command) == 2
    err = capsys.readouterr().err
    assert err.startswith("optmech design: error:")


def test_parse_privacy() -> None:
    assert parse_privacy("eps=2") == PureDP(2.0)
    assert parse_privacy("delta=0.3") == ApproxDP(0.0, 0.3)
    assert parse_privacy("epsilon=1, delta=1e-6") == ApproxDP(1.0, 1e-6)


def test_beyond_guarantees(capsys: pytest.CaptureFixture[str]) -> None:
    """zCDP against the discrete Gaussian N_ℤ(0, 1/(2ρ)), summed here; a profile's points."""
    out = _json(capsys, "design --privacy zcdp=0.5 --integer --json")
    k = range(-60, 61)
    weights = [math.exp(-0.5 * i * i) for i in k]
    dg = math.fsum(abs(i) * w for i, w in zip(k, weights, strict=True)) / math.fsum(weights)
    assert out["privacy"] == "0.5-zCDP" and "discrete Gaussian" in out["reference"]
    assert out["reference_value"] == pytest.approx(dg, rel=1e-12)
    assert out["lp_value"] <= dg and out["certified_rho"] <= 0.5 and out["rounds"] >= 1
    out = _json(capsys, "design --privacy profile=0.5:1e-2,1:1e-3 --integer --json")
    got = [d for _, d in out["certified_profile"]]
    assert len(got) == 2 and all(d <= t for d, t in zip(got, (1e-2, 1e-3), strict=True))
    assert _run("design --privacy rdp=1:0.5") == 2
    assert "`alpha`" in capsys.readouterr().err


def test_two_dimensional_design(capsys: pytest.CaptureFixture[str], tmp_path: object) -> None:
    """``--dimension 2``: certified, above the marginal bound ``2V*`` (Geng & Viswanath 2016:
    each coordinate of a 2-D ε-DP noise is 1-D ε-DP), the staircase of the ball written out."""
    plot = f"{tmp_path}/heat.png"
    command = "design --dimension 2 --sensitivity-norm linf --privacy eps=1 --resolution 2"
    res = _json(capsys, f"{command} --periods 2 --json --plot {shlex.quote(plot)}")
    v_star = math.exp(0.5) / math.expm1(1.0)
    assert res["lp_value"] >= 2 * v_star
    assert res["lower_bound"] <= res["lp_value"]
    assert res["certified_epsilon"] <= 1 + 1e-9
    assert res["sensitivity_norm"] == "linf" and res["dimension"] == 2
    assert res["two_staircases_half_eps_value"] == pytest.approx(
        2 * math.exp(0.25) / math.expm1(0.5), rel=1e-12
    )
    with open(plot, "rb") as handle:
        assert handle.read(8) == b"\x89PNG\r\n\x1a\n"


def test_two_dimensional_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run("design --dimension 2 --privacy eps=1") == 2
    assert "--sensitivity-norm" in capsys.readouterr().err
    assert _run("design --sensitivity-norm l2 --privacy eps=1") == 2
    assert "--dimension 2" in capsys.readouterr().err
    assert _run("design --dimension 2 --sensitivity-norm l2 --privacy eps=1 --integer") == 2


def test_a_delta_below_the_lps_reach_is_served_by_the_pure_design(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``eps=1,delta=1e-300``: the ε-DP design, its δ certified 0, its value
    within 1e-6 of the staircase's closed form (Geng & Viswanath 2016, Thm. 3)."""
    res = _json(capsys, "design --privacy eps=1,delta=1e-300 --json")
    assert res["source"] == "pure" and res["certified_delta"] == 0.0
    staircase = math.exp(0.5) / math.expm1(1.0)  # the optimal staircase's E|X| at ε = Δ = 1
    assert staircase * (1 - 1e-12) <= res["value"] <= staircase * (1 + 1e-6)
    assert res["lower_bound"] <= res["value"]
