"""``optmech shuffle``: the guarantee of a randomizer given three ways, the design, the tables
within 100 columns, and a ``--help`` that loads no LP."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import optmech
from optmech.cli import main


def _json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_a_matrix_file_and_grr_give_the_librarys_guarantee(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """GRR on 3 values at ε₀ = 1, written by hand as .csv and .npy, and asked as ``--grr``:
    one certificate, the one ``shuffle_epsilon`` gives for that matrix."""
    e = math.e
    grr = np.array([[e, 1, 1], [1, e, 1], [1, 1, e]]) / (e + 2)
    np.savetxt(tmp_path / "q.csv", grr, delimiter=",", fmt="%.17g")
    np.save(tmp_path / "q.npy", grr)
    users = ["--n", "5000", "--delta", "1e-6"]
    expected = optmech.shuffle_epsilon(grr, 5000, 1e-6)
    for given in (
        ["--matrix", str(tmp_path / "q.csv")],
        ["--matrix", str(tmp_path / "q.npy")],
        ["--grr", "3", "--eps0", "1"],
    ):
        out = _json(["shuffle", *given, *users], capsys)
        assert out["epsilon"] == pytest.approx(expected.epsilon, rel=1e-12)
        assert out["lower_bound"] <= out["epsilon"] < 1.0  # type: ignore[operator]
        assert out["method"] == expected.method
    out = _json(["shuffle", "--grr", "3", "--eps0", "1", *users, "--method", "clones"], capsys)
    assert out["bounds"] == {"local": pytest.approx(1.0), "clones": pytest.approx(out["epsilon"])}


def test_the_guarantee_table_fits_100_columns(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    assert main(["shuffle", "--grr", "4", "--eps0", "2", "--n", "10000", "--delta", "1e-6"]) == 0
    out = capsys.readouterr().out
    assert "certified central ε (upper bound)" in out and "bound by blanket" in out
    assert max(len(line) for line in out.splitlines()) <= 100


@pytest.mark.slow  # about 2 s: a design on two frontier lines
def test_the_design_is_certified_by_its_own_matrix_and_fits_100_columns(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = ["shuffle", "--design", "--inputs", "0,1,2,3", "--epsilon", "1", "--delta", "1e-6"]
    argv += ["--n", "2000", "--thetas", "0,1", "--prior", "4,3,2,1"]
    out = _json(argv, capsys)
    q = np.asarray(out["mechanism"], dtype=np.float64)
    again = optmech.shuffle_epsilon(q, 2000, 1e-6)
    assert again.epsilon <= 1.0
    assert out["certified_epsilon"] == pytest.approx(again.epsilon, rel=1e-12)
    prior = np.array([0.4, 0.3, 0.2, 0.1])
    err = np.asarray(out["outputs"])[None, :] - np.arange(4.0)[:, None]
    assert out["value"] == pytest.approx(float(np.sum(prior[:, None] * q * err**2)), rel=1e-12)
    assert set(out["baselines"]) == {"GRR", "RR-on-Bins"}  # type: ignore[arg-type]
    assert [p["theta"] for p in out["frontier"]] == [0.0, 1.0]  # type: ignore[attr-defined]
    monkeypatch.setenv("COLUMNS", "100")
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "lower bound over the family searched" in text and "frontier" in text
    assert max(len(line) for line in text.splitlines()) <= 100


def test_options_of_the_other_mode_are_refused_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    users = ["--n", "100", "--delta", "1e-6"]
    assert main(["shuffle", "--grr", "3", "--eps0", "1", *users, "--thetas", "0,1"]) == 2
    assert "`--thetas` applies to --design only" in capsys.readouterr().err
    assert main(["shuffle", "--design", "--grr", "3", *users]) == 2
    assert "`--grr` does not apply to --design" in capsys.readouterr().err


def test_help_loads_no_lp_and_no_certificate() -> None:
    code = (
        "import sys\nfrom optmech.cli import main\ntry:\n    main(['shuffle', '--help'])\n"
        "except SystemExit:\n    pass\nprint(sorted(m for m in sys.modules if m == 'cvxpy' or "
        "m.startswith(('optmech.lp.shuffle', 'optmech.lp.matrix', 'optmech.certify'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"
