"""GRS user LP (uniform prior on {0..n}, |e| loss; GRS (2)–(6)).

Per n and solver: phases of :func:`optmech.bayesian_mechanism` — ``build`` (weights, scaling
and the vectorised cvxpy problem), ``compile`` (cvxpy canonicalisation), ``solve`` (inside the
solver), ``certify`` (clip, privacy repair, independent certification, dual lower bound) —
the gap of the certified value to ``G`` + Bayes remap (GRS Thm. 3.1), and two ratios from the
same run: pipeline / the same solver on a hand-built scipy.sparse LP (same scaling and
tolerances, no cvxpy; the *full* LP, while the pipeline solves the mirror-reduced one on this
symmetric instance, so the ratio includes the reduction's gain), and pipeline / qif's
``min_loss_given_d`` (libqif, not a dependency; skipped with a note when it is not installed).
These rows solve the whole LP (``method="full"``); the general-prior rows of
``benchmarks.grs_scaling`` (column generation, the default, against the whole LP) follow them.
"""

from __future__ import annotations

import functools
import json
import math
import subprocess
import sys
import time
from typing import Any

import numpy as np
import scipy.sparse as sp

from benchmarks._common import fmt_field, run_case, solve_direct

MODULE = "benchmarks.grs"


def instance(n: int) -> tuple[np.ndarray, np.ndarray]:
    i = np.arange(n + 1)
    return np.full(n + 1, 1.0 / (n + 1)), np.abs(i[:, None] - i[None, :]).astype(np.float64)


def pipeline_case(n: int, eps: float, solver: str) -> dict[str, Any]:
    """The full pipeline, with its phases (runs in a child process)."""
    import optmech.lp.user as user_lp
    from optmech.lp.geometric_remaps import geometric_bayes

    prior, loss = instance(n)
    weights = prior[:, None] * loss
    start = time.perf_counter()
    res = user_lp.bayesian_mechanism(prior, loss, eps, solver=solver, method="full")
    total = time.perf_counter() - start
    # The build phase alone (the same vectorised construction, timed on its own).
    setting = user_lp.resolve_setting(loss, graph=None, outputs=None, num_inputs=n + 1)
    bounds = user_lp.Bounds.FIRST_ROW if solver == "CLARABEL" else user_lp.Bounds.ALL
    data = user_lp.LPData(weights.shape, weights=weights)
    t0 = time.perf_counter()
    if res.symmetry_reduced:  # the orbit LP of the mirror symmetry (half the variables)
        user_lp.MirrorReduction(setting.graph).apply(data, eps, user_lp.LPForm(bounds))
    else:
        user_lp.build_user_lp(data, eps, setting.graph, bounds=bounds)
    build = time.perf_counter() - t0
    info = res.provenance
    ref = geometric_bayes(prior, loss, eps).value
    return {
        "total": total,
        "build": build,
        "compile": info.compile_time,
        "solve": info.solve_time,
        # The attempts' seconds include their builds.
        "certify": max(total - info.total_time, 0.0),
        "status": res.status,
        "solver": res.solver,
        "variables": info.num_variables,
        "value": res.value,
        "gap_to_closed_form": (res.value - ref) / ref,
        "certified_epsilon": res.certified_epsilon,
        "reduced": res.symmetry_reduced,
    }


def _lp_matrices(n: int, eps: float) -> tuple[np.ndarray, sp.csr_matrix, sp.csr_matrix, int]:
    """Objective (scaled as the pipeline does), equality rows, DP rows; x = vec(X) row-major."""
    from optmech.lp.geometric_remaps import geometric_bayes

    prior, loss = instance(n)
    size = n + 1
    weights = prior[:, None] * loss
    q = (weights / geometric_bayes(prior, loss, eps).value).ravel()
    idx = np.arange(size * size).reshape(size, size)
    e = math.exp(eps)
    a_eq = sp.csr_matrix(
        (np.ones(size * size), (np.repeat(np.arange(size), size), idx.ravel())),
        shape=(size, size * size),
    )
    upper, lower = idx[:-1].ravel(), idx[1:].ravel()
    m = upper.size
    rows = np.arange(m)
    ones, es = np.ones(m), -e * np.ones(m)
    dp = sp.vstack(
        [
            sp.csr_matrix(
                (np.r_[ones, es], (np.r_[rows, rows], np.r_[upper, lower])), shape=(m, size * size)
            ),
            sp.csr_matrix(
                (np.r_[ones, es], (np.r_[rows, rows], np.r_[lower, upper])), shape=(m, size * size)
            ),
        ],
        format="csr",
    )
    return q, a_eq, dp, size


def direct_case(n: int, eps: float, solver: str) -> dict[str, Any]:
    """The same LP handed to the solver's own API (no cvxpy), same options (child process)."""
    from optmech.lp.geometric_remaps import geometric_bayes  # noqa: F401  (imported before the clock)

    start = time.perf_counter()
    q, a_eq, dp, size = _lp_matrices(n, eps)
    matrices = time.perf_counter() - start
    # As the pipeline: X ≥ 0 only on the first row (DP on a connected graph implies it).
    first = sp.csr_matrix(
        (np.ones(size), (np.arange(size), np.arange(size))), shape=(size, size * size)
    )
    out = solve_direct(
        solver, "count", q, a_eq, np.ones(size), dp, np.zeros(dp.shape[0]), nonneg=first
    )
    return {**out, "total": time.perf_counter() - start, "build": matrices + out["build"]}


_QIF_SCRIPT = """
import json, sys, time
import numpy as np
import qif
n, eps = int(sys.argv[1]), float(sys.argv[2])
pi = np.full(n + 1, 1.0 / (n + 1))
start = time.perf_counter()
C = qif.mechanism.d_privacy.min_loss_given_d(
    pi, n + 1, qif.metric.scale(qif.metric.euclidean(), eps), qif.metric.euclidean(),
    d_priv_ch=qif.metric.euclidean_chain())
t = time.perf_counter() - start
i = np.arange(n + 1)
print(json.dumps({"total": t, "value": float((pi[:, None] * np.abs(i[:, None] - i) * C).sum())}))
"""


def qif_case(n: int, eps: float, timeout: float) -> dict[str, Any]:
    """qif's ``min_loss_given_d`` on the same instance, or why it was not run."""
    try:
        import qif  # noqa: F401
    except ImportError:
        return {"status": "skipped: qif (libqif) not installed"}
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _QIF_SCRIPT, str(n), str(eps)],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "timeout_s": timeout}
    if proc.returncode != 0:
        return {"status": f"error: {proc.stderr.strip().splitlines()[-1:]}"}
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    out["status"] = "ok"
    return out


def run(quick: bool, timeout: float, eps: float = 0.5) -> list[dict[str, Any]]:
    """Rows of the GRS section."""
    from optmech.lp.geometric_remaps import geometric_bayes
    from optmech.lp.solve import available_solvers

    sizes = [50, 100] if quick else [50, 100, 200, 400, 800]
    solvers = [s for s in ("CLARABEL", "HIGHS") if s in available_solvers()]
    qif_sizes = {20, 50} if quick else {50, 100}
    rows = []
    for n in sizes:
        for solver in solvers:
            # HiGHS (simplex) is far slower above n ≈ 200 (SOLVER_POLICY["count"]); n = 800
            # is measured with Clarabel only.
            if solver == "HIGHS" and n > 200:
                continue
            row: dict[str, Any] = {"section": "grs", "n": n, "epsilon": eps, "solver": solver}
            pipe = run_case(MODULE, "pipeline_case", timeout, n=n, eps=eps, solver=solver)
            row.update(pipe)
            if pipe["status"] in ("optimal", "optimal_inaccurate"):
                direct = run_case(MODULE, "direct_case", timeout, n=n, eps=eps, solver=solver)
                row["direct_total"] = direct.get("total")
                row["direct_status"] = direct.get("status_solver", direct["status"])
                if direct.get("total"):
                    row["pipeline_over_direct"] = pipe["total"] / direct["total"]
                    row["pipeline_solve_over_direct_solve"] = pipe["solve"] / direct["solve"]
            if n in qif_sizes and solver == solvers[0]:
                qf = qif_case(n, eps, min(timeout, 120.0))
                row["qif_status"] = qf["status"]
                if qf["status"] == "ok" and pipe.get("total"):
                    prior, loss = instance(n)
                    ref = geometric_bayes(prior, loss, eps).value
                    row["qif_total"] = qf["total"]
                    row["pipeline_over_qif"] = pipe["total"] / qf["total"]
                    row["qif_gap_to_closed_form"] = (qf["value"] - ref) / ref
            print(_line(row), flush=True)
            rows.append(row)
    from benchmarks import grs_scaling

    return rows + grs_scaling.run(quick, timeout, max_n=400 if quick else 4000)


def _line(row: dict[str, Any]) -> str:
    f = functools.partial(fmt_field, row)

    return (
        f"[grs] n={row['n']} {row['solver']}"
        f"{' (mirror-reduced)' if row.get('reduced') else ''}: {row['status']} "
        f"total {f('total')} s "
        f"(build {f('build')}, compile {f('compile')}, solve {f('solve')}, certify "
        f"{f('certify')}), gap {f('gap_to_closed_form', '+.1e')}, pipeline/direct "
        f"{f('pipeline_over_direct')}, pipeline/qif {f('pipeline_over_qif')} "
        f"[{row.get('qif_status', '')}], rss {f('peak_rss_mb', '.0f')} MB, load "
        f"{f('load')}"
    )
