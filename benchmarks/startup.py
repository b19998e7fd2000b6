"""Whole processes of small problems: where a command's time goes when the LP itself is small.

Every command runs as its own process, alternately with the others (A B C ... A B C ...), and
is timed from launch to exit. Commands:

* the interpreter alone, ``import numpy``, ``import cvxpy``, ``import scipy.sparse, highspy``;
* the closed-form command ``optmech staircase --epsilon 1``, and ``optmech verify --quick``;
* per LP kind — the GRS user LP (uniform prior on {0..n}, |e| loss, ε = 0.5, n = 30) and the
  additive ε-DP LP (|e|, ε = 1, the default grid) — optmech's pipeline, split inside the process
  into imports (cvxpy's own, then optmech's and the solvers'), build, cvxpy compile, solve and
  certify, and the *same matrices* solved by HiGHS through ``highspy`` in a process that never
  imports cvxpy (imports, build or load, solve): what a path without cvxpy would cost;
* qif's ``min_loss_given_d`` on the same user LP (not a dependency; skipped when absent).
"""

from __future__ import annotations

import inspect
import math
import os
import sys
import tempfile
from typing import Any

from benchmarks._common import load, repeats
from benchmarks._highs import highs_model
from benchmarks._process import run_process

N_USER = 30
EPS_USER = 0.5

#: Solver tolerances of the direct runs: optmech's HiGHS defaults (``optmech.lp.solve``), written
#: out because that module imports cvxpy.
HIGHS_TOLERANCES = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}

_USER_PIPELINE = """
import json, sys, time
t0 = time.perf_counter()
import numpy as np
t1 = time.perf_counter()
import cvxpy
t2 = time.perf_counter()
import optmech.lp.user as user_lp
import highspy, clarabel
t3 = time.perf_counter()
n, eps = int(sys.argv[1]), float(sys.argv[2])
i = np.arange(n + 1)
prior = np.full(n + 1, 1.0 / (n + 1))
loss = np.abs(i[:, None] - i[None, :]).astype(np.float64)
res = user_lp.bayesian_mechanism(prior, loss, eps)
t4 = time.perf_counter()
info = res.provenance
print(json.dumps({"numpy": t1 - t0, "cvxpy": t2 - t1, "optmech": t3 - t2, "lp": t4 - t3,
    "compile": info.compile_time, "solve": info.solve_time,
    "build_certify": t4 - t3 - info.compile_time - info.solve_time,
    "solver": res.solver, "value": res.value}))
"""

_ADDITIVE_PIPELINE = """
import json, sys, time, warnings
warnings.simplefilter("ignore")
t0 = time.perf_counter()
import numpy as np
t1 = time.perf_counter()
import cvxpy
t2 = time.perf_counter()
import optmech
from optmech.lp.additive import AdditiveSpec, build_additive_lp
design_noise = optmech.design_noise
import highspy, clarabel
t3 = time.perf_counter()
eps = float(sys.argv[1])
noise = design_noise(optmech.PureDP(eps), sensitivity=1.0, cost="abs")
t4 = time.perf_counter()
rec = noise.record
if len(sys.argv) > 2:  # save the matrices for the direct run (outside the timed part)
    import scipy.sparse as sp
    lp = build_additive_lp(AdditiveSpec(optmech.PureDP(eps), sensitivity=1.0, cost="abs"))
    sp.save_npz(sys.argv[2] + "_ub.npz", lp.a_ub.tocsc())
    sp.save_npz(sys.argv[2] + "_eq.npz", sp.csc_matrix(lp.a_eq))
    np.savez(sys.argv[2] + "_vec.npz", c=lp.c, b_ub=lp.b_ub)
print(json.dumps({"numpy": t1 - t0, "cvxpy": t2 - t1, "optmech": t3 - t2, "lp": t4 - t3,
    "build": rec.build_time, "compile": rec.compile_time, "solve": rec.solve_time,
    "certify": t4 - t3 - rec.build_time - rec.compile_time - rec.solve_time,
    "solver": rec.solver, "value": noise.value, "variables": rec.num_variables}))
"""

# The direct runs: numpy, scipy.sparse and highspy only (the process never imports cvxpy). The
# model is built by the source of highs_model, which imports nothing else.
_DIRECT_SOLVE = (
    inspect.getsource(highs_model)
    + """
def solve(c, a_eq, b_eq, a_ub, b_ub, tolerances):
    h = highs_model(c, a_eq, b_eq, a_ub, b_ub, tolerances)
    h.run()
    sol = h.getSolution()
    return h.modelStatusToString(h.getModelStatus()), np.asarray(sol.col_value), h
"""
)

_USER_DIRECT = (
    """
import json, math, sys, time
t0 = time.perf_counter()
import numpy as np
import scipy.sparse as sp
import highspy
t1 = time.perf_counter()
"""
    + _DIRECT_SOLVE
    + """
n, eps, tolerances = int(sys.argv[1]), float(sys.argv[2]), json.loads(sys.argv[3])
size = n + 1
i = np.arange(size)
weights = np.abs(i[:, None] - i[None, :]) / size  # prior × loss, x = vec(X) row-major
idx = np.arange(size * size).reshape(size, size)
a_eq = sp.csr_matrix((np.ones(size * size), (np.repeat(i, size), idx.ravel())),
                     shape=(size, size * size))
up, lo = idx[:-1].ravel(), idx[1:].ravel()
rows = np.arange(2 * up.size)
cols = np.r_[up, lo, lo, up]
vals = np.r_[np.ones(up.size), np.full(up.size, -math.exp(eps))]
a_ub = sp.csr_matrix((np.r_[vals, vals], (np.r_[rows[:up.size], rows[:up.size],
                     rows[up.size:], rows[up.size:]], cols)), shape=(rows.size, size * size))
t2 = time.perf_counter()
status, x, _ = solve(weights.ravel(), a_eq, np.ones(size), a_ub, np.zeros(rows.size), tolerances)
t3 = time.perf_counter()
X = np.clip(x.reshape(size, size), 0.0, None)
X /= X.sum(axis=1, keepdims=True)
worst = float(np.max(np.abs(np.log(np.maximum(X[1:], 1e-300) / np.maximum(X[:-1], 1e-300)))))
t4 = time.perf_counter()
print(json.dumps({"imports": t1 - t0, "build": t2 - t1, "solve": t3 - t2, "check": t4 - t3,
    "status": status, "value": float((weights * X).sum()), "ratio_check": worst}))
"""
)

_ADDITIVE_DIRECT = (
    """
import json, sys, time
t0 = time.perf_counter()
import numpy as np
import scipy.sparse as sp
import highspy
t1 = time.perf_counter()
"""
    + _DIRECT_SOLVE
    + """
stem, tolerances = sys.argv[1], json.loads(sys.argv[2])
a_ub, a_eq = sp.load_npz(stem + "_ub.npz"), sp.load_npz(stem + "_eq.npz")
vec = np.load(stem + "_vec.npz")
t2 = time.perf_counter()
status, x, h = solve(vec["c"], a_eq, np.ones(a_eq.shape[0]), a_ub, vec["b_ub"], tolerances)
t3 = time.perf_counter()
print(json.dumps({"imports": t1 - t0, "load": t2 - t1, "solve": t3 - t2, "status": status,
    "objective": float(vec["c"] @ x)}))
"""
)

_QIF = """
import numpy as np, qif, sys
n, eps = int(sys.argv[1]), float(sys.argv[2])
pi = np.full(n + 1, 1.0 / (n + 1))
qif.mechanism.d_privacy.min_loss_given_d(
    pi, n + 1, qif.metric.scale(qif.metric.euclidean(), eps), qif.metric.euclidean(),
    d_priv_ch=qif.metric.euclidean_chain())
"""


def _commands(stem: str) -> dict[str, list[str]]:
    py = sys.executable
    cli = os.path.join(os.path.dirname(py), "optmech")
    optmech = [cli] if os.path.exists(cli) else [py, "-m", "optmech"]
    tol = _json(HIGHS_TOLERANCES)
    cmds = {
        "python -c pass": [py, "-c", "pass"],
        "import numpy": [py, "-c", "import numpy"],
        "import cvxpy": [py, "-c", "import cvxpy"],
        "import scipy.sparse, highspy": [py, "-c", "import scipy.sparse, highspy"],
        "optmech staircase --epsilon 1": [*optmech, "staircase", "--epsilon", "1"],
        "optmech verify --quick": [*optmech, "verify", "--quick"],
        f"user LP n={N_USER}: optmech": [py, "-c", _USER_PIPELINE, str(N_USER), str(EPS_USER)],
        f"user LP n={N_USER}: highspy, no cvxpy": [
            py,
            "-c",
            _USER_DIRECT,
            str(N_USER),
            str(EPS_USER),
            tol,
        ],
        "additive LP eps=1: optmech": [py, "-c", _ADDITIVE_PIPELINE, "1.0"],
        "additive LP eps=1: highspy, no cvxpy": [py, "-c", _ADDITIVE_DIRECT, stem, tol],
    }
    try:
        import qif  # noqa: F401
    except ImportError:
        pass
    else:
        cmds[f"user LP n={N_USER}: qif"] = [py, "-c", _QIF, str(N_USER), str(EPS_USER)]
    return cmds


def _json(obj: Any) -> str:
    import json

    return json.dumps(obj)


def run(quick: bool, timeout: float) -> list[dict[str, Any]]:
    """One row per command: wall min / median over the runs, peak memory, the in-process split."""
    import json
    import statistics

    with tempfile.TemporaryDirectory() as tmp:
        stem = os.path.join(tmp, "additive")
        # Setup (untimed): the additive LP's matrices for the direct run.
        prep = run_process([sys.executable, "-c", _ADDITIVE_PIPELINE, "1.0", stem], timeout=timeout)
        if prep.returncode != 0:
            return [{"section": "startup", "command": "setup", "status": prep.stderr[-200:]}]
        cmds = _commands(stem)
        walls: dict[str, list[float]] = {k: [] for k in cmds}
        peaks: dict[str, list[float]] = {k: [] for k in cmds}
        splits: dict[str, list[dict[str, Any]]] = {k: [] for k in cmds}
        loads = [load()]
        for _ in range(max(repeats(), 3)):
            for name, argv in cmds.items():
                proc = run_process(argv, timeout=timeout)
                if proc.returncode != 0:
                    splits[name].append({"status": f"error: {proc.stderr.strip()[-200:]}"})
                    continue
                walls[name].append(proc.wall)
                if proc.peak_rss_mb is not None:
                    peaks[name].append(proc.peak_rss_mb)
                last = proc.stdout.strip().splitlines()[-1:] if proc.stdout.strip() else []
                if last and last[0].startswith("{"):
                    splits[name].append(json.loads(last[0]))
            loads.append(load())
    rows = []
    for name in cmds:
        row: dict[str, Any] = {"section": "startup", "command": name, "runs": len(walls[name])}
        if walls[name]:
            row["wall_min"] = min(walls[name])
            row["wall_median"] = statistics.median(walls[name])
            row["peak_rss_mb"] = max(peaks[name]) if peaks[name] else None
        for key in sorted({k for s in splits[name] for k in s}):
            vals = [s[key] for s in splits[name] if isinstance(s.get(key), float)]
            if vals:
                row[f"{key}_median"] = statistics.median(vals)
            elif splits[name]:
                row[key] = splits[name][-1].get(key)
        row["load"] = max(loads)
        row["load_min"] = min(loads)
        rows.append(row)
        print(
            f"[startup] {name}: wall {row.get('wall_min', math.nan):.3f} / "
            f"{row.get('wall_median', math.nan):.3f} s (min / median of {row['runs']}), "
            f"peak {row.get('peak_rss_mb') or math.nan:.0f} MB, load {row['load']:.2f}",
            flush=True,
        )
    return rows
