"""The shuffle benchmark section: its cases run and its table says which bound is looser."""

from __future__ import annotations

from pathlib import Path

from benchmarks import shuffle


def test_optmech_case_reports_every_method() -> None:
    row = shuffle.optmech_case(3, 2.0, 200, 1e-3)
    assert set(row["bounds"]) == {"clones", "blanket", "variation-ratio"}
    assert row["lower_bound"] <= row["epsilon"] == min(row["bounds"].values())


def test_peer_case_loads_the_file_named(tmp_path: Path) -> None:
    """A stand-in for the published module: the case passes the table's parameters."""
    fake = tmp_path / "peer.py"
    fake.write_text("def amplificationUB(p, beta, q0, q1, n, delta, T):\n    return beta\n")
    out = shuffle.peer_case(str(fake), 3, 0.0, 10, 1e-6, 5)
    assert out["epsilon"] == 0.0  # β = (e^0 − 1)/(e^0 + 2)


def test_table_flags_a_peer_below_the_lower_bound() -> None:
    base = {"section": "shuffle", "k": 3, "eps0": 1.0, "n": 100, "method": "variation-ratio"}
    rows = [
        base | {"epsilon": 0.5, "lower_bound": 0.4, "peer_epsilon": 0.6},
        base | {"epsilon": 0.5, "lower_bound": 0.4, "peer_epsilon": 0.45},
        base | {"epsilon": 0.5, "lower_bound": 0.4, "peer_epsilon": 0.3},
        base | {"epsilon": 0.5, "lower_bound": 0.4, "peer_status": "not run: no file"},
    ]
    lines = shuffle.markdown(rows).splitlines()
    assert lines[2].endswith("| yes") and lines[3].endswith("| no")
    assert "not an upper bound" in lines[4] and lines[5].endswith("| –")
    assert lines[-1] == "Peer: not run: no file."
