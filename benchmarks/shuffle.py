"""Shuffle model: optmech's certified central ε of n shuffled k-RR reports, by method, against
the published variation-ratio code (Wang et al., PVLDB 2024; wangsw/PrivacyAmplification,
``unifiedamplification.amplificationUB``).

Per case (k, ε₀, n, δ = 1e-6): in a fresh process, ``shuffle_epsilon(..., method="auto")``'s
time, its ε, method and lower bound (the ε of a concrete pair of datasets), and each method's
ε and time alone; in another, the peer's upper bound from the table's parameters
(p = q = e^ε₀, β = (e^ε₀ − 1)/(e^ε₀ + k − 1)) with 20 bisection steps, and its time. The peer is
not a dependency: it is loaded from the file named by the environment variable
``OPTMECH_VR_PEER`` (a copy of ``unifiedamplification.py``), and skipped with a note without
it. Its bound pools user 1's neutral draw with every other user's (the module docstring of
``optmech.certify.shuffle_variation``): where it falls below optmech's lower bound it is not an
upper bound at all, and the row says so.
"""

from __future__ import annotations

import math
import os
import time
from typing import Any

from benchmarks._common import run_once

MODULE = "benchmarks.shuffle"
PEER_ENV = "OPTMECH_VR_PEER"
DELTA = 1e-6
METHODS = ("exact", "clones", "blanket", "variation-ratio")


def _krr(k: int, eps0: float) -> Any:
    import numpy as np

    e = math.exp(eps0)
    return (e * np.eye(k) + (1.0 - np.eye(k))) / (e + k - 1)


def optmech_case(k: int, eps0: float, n: int, delta: float) -> dict[str, Any]:
    """'auto' in a fresh process, then each method alone (child process)."""
    t0 = time.perf_counter()
    import optmech

    imported = time.perf_counter() - t0
    matrix = _krr(k, eps0)
    t0 = time.perf_counter()
    g = optmech.shuffle_epsilon(matrix, n, delta)
    total = time.perf_counter() - t0
    times: dict[str, float] = {}
    bounds: dict[str, float] = {}
    for method in METHODS:
        if method == "exact" and k != 2:
            continue
        t0 = time.perf_counter()
        bounds[method] = optmech.shuffle_epsilon(matrix, n, delta, method=method).epsilon
        times[method] = time.perf_counter() - t0
    return {
        "total": total,
        "import": imported,
        "epsilon": g.epsilon,
        "method": g.method,
        "lower_bound": g.lower_bound,
        "bounds": bounds,
        "times": times,
    }


def peer_case(path: str, k: int, eps0: float, n: int, delta: float, steps: int) -> dict[str, Any]:
    """The published code's upper bound (child process)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("peer_variation_ratio", path)
    assert spec is not None and spec.loader is not None
    peer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(peer)
    e = math.exp(eps0)
    beta = (e - 1.0) / (e + k - 1.0)
    t0 = time.perf_counter()
    value = float(peer.amplificationUB(e, beta, e, e, n, delta, steps))
    return {"total": time.perf_counter() - t0, "epsilon": value}


def run(quick: bool, timeout: float) -> list[dict[str, Any]]:
    """k ∈ {2, 32, 64}, ε₀ ∈ {1, 2, 4}, n = 10⁴ (and 10⁶ in the full mode), δ = 1e-6."""
    sizes = [10_000] if quick else [10_000, 1_000_000]
    peer = os.environ.get(PEER_ENV)
    peer_note = None
    if not peer or not os.path.isfile(peer):
        peer_note = f"not run: set {PEER_ENV} to a copy of unifiedamplification.py"
    rows = []
    for n in sizes:
        for k in (2, 32, 64):
            for eps0 in (1.0, 2.0, 4.0):
                row: dict[str, Any] = {"section": "shuffle", "k": k, "eps0": eps0, "n": n}
                row.update(
                    run_once(MODULE, "optmech_case", timeout, k=k, eps0=eps0, n=n, delta=DELTA)
                )
                if peer_note is None:
                    out = run_once(
                        MODULE,
                        "peer_case",
                        timeout,
                        path=peer,
                        k=k,
                        eps0=eps0,
                        n=n,
                        delta=DELTA,
                        steps=20,
                    )
                    row["peer_status"] = out.get("status", "ok")
                    row["peer_epsilon"] = out.get("epsilon")
                    row["peer_total"] = out.get("total")
                else:
                    row["peer_status"] = peer_note
                rows.append(row)
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    """The section's table: optmech's ε by method and the peer's, times in seconds (the auto
    ε, the lower bound and the peer's ε to seven digits, enough to order them)."""

    def f(val: Any, fmt: str = ".5g") -> str:
        return "–" if val is None else format(val, fmt)

    head = (
        "k | ε₀ | n | auto ε (method) | lower bound | exact | blanket | variation-ratio | "
        "clones | auto s | variation-ratio s | peer ε | peer s | optmech ≤ peer"
    )
    lines = [head, " | ".join("---" for _ in head.split(" | "))]
    notes = set()
    for r in rows:
        b, t = r.get("bounds", {}), r.get("times", {})
        peer = r.get("peer_epsilon")
        if peer is None:
            verdict = "–"
            notes.add(str(r.get("peer_status")))
        elif r.get("epsilon") is None:
            verdict = "–"
        elif r["epsilon"] <= peer * (1 + 1e-9):
            verdict = "yes"
        elif peer < r["lower_bound"]:
            verdict = "no: peer below a concrete pair's ε (not an upper bound)"
        else:
            verdict = "no"
        lines.append(
            " | ".join(
                [
                    str(r["k"]),
                    f"{r['eps0']:g}",
                    f"{r['n']:.0e}",
                    f"{f(r.get('epsilon'), '.7g')} ({r.get('method', r.get('status'))})",
                    f(r.get("lower_bound"), ".7g"),
                    f(b.get("exact")),
                    f(b.get("blanket")),
                    f(b.get("variation-ratio")),
                    f(b.get("clones")),
                    f(r.get("total"), ".2f"),
                    f(t.get("variation-ratio"), ".2f"),
                    f(peer, ".7g"),
                    f(r.get("peer_total"), ".2f"),
                    verdict,
                ]
            )
        )
    if notes:
        lines += ["", "Peer: " + "; ".join(sorted(notes)) + "."]
    return "\n".join(lines)
