"""Sampling throughput (samples per second) of optmech's closed-form noise families.

``Staircase.rvs`` against ``numpy.random.Generator.laplace`` (the limit: one vectorised draw
per value; target within 3x) and against diffprivlib's ``Staircase`` mechanism (the peer;
one ``randomise`` call per value, so per-value throughput; target ≥ 100x).
``DiscreteStaircase.rvs`` against ``Generator.geometric``; ``UniformAtom.rvs`` against
``Generator.uniform``. The exact samplers (``sample_exact``: integer arithmetic, no floating
point) of ``Geometric``, ``DiscreteStaircase`` and a designed lattice noise against the same
family's float ``rvs`` (the price of exactness), with the default bit source
(``secrets.SystemRandom``, the operating system's entropy) and with a seeded
``random.Random``. diffprivlib is not a dependency of optmech: its row is skipped, with a
note, when it is not installed. Medians over ``repeat`` runs, all in this process.
"""

from __future__ import annotations

import math
import random
import time
import warnings
from typing import Any

import numpy as np

from benchmarks._common import load, median_seconds, timings


def _dpl_staircase_rate(eps: float, gamma: float, count: int) -> float | str:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from diffprivlib.mechanisms import Staircase as DplStaircase
    except Exception as exc:  # not installed, or incompatible with the installed scikit-learn
        return f"skipped: diffprivlib unavailable ({type(exc).__name__})"
    mech = DplStaircase(epsilon=eps, sensitivity=1.0, gamma=gamma, random_state=1)
    start = time.perf_counter()
    for _ in range(count):
        mech.randomise(0.0)
    return count / (time.perf_counter() - start)


def run(quick: bool, timeout: float) -> list[dict[str, Any]]:
    """Rows of the samplers section (``timeout`` unused: every case is short)."""
    from optmech.lp.design import design_noise
    from optmech.mechanisms.discrete_staircase import DiscreteStaircase
    from optmech.mechanisms.geometric import Geometric
    from optmech.mechanisms.staircase import Staircase
    from optmech.mechanisms.uniform_atom import UniformAtom
    from optmech.privacy import PureDP

    size = 10**6 if quick else 10**7
    repeat = 3 if quick else 5
    rng = np.random.default_rng(12345)
    rows: list[dict[str, Any]] = []

    def add(
        name: str,
        eps: float,
        t_ours: float,
        limit: str,
        t_limit: float,
        peer: float | str | None = None,
        count: int = size,
        t_best: float | None = None,
    ) -> None:
        row: dict[str, Any] = {
            "section": "samplers",
            "sampler": name,
            "epsilon": eps,
            "size": count,
            "runs": repeat,
            "samples_per_s": count / t_ours,
            "samples_per_s_best": count / (t_best or t_ours),
            "limit": limit,
            "limit_samples_per_s": count / t_limit,
            "ours_over_limit_time": t_ours / t_limit,
            "load": load(),
        }
        if isinstance(peer, float):
            row["peer_samples_per_s"] = peer
            row["ours_over_peer_rate"] = row["samples_per_s"] / peer
        elif peer is not None:
            row["peer_status"] = peer
        rows.append(row)
        extra = (
            f", {row['ours_over_peer_rate']:.0f}x diffprivlib"
            if "ours_over_peer_rate" in row
            else (f", {peer}" if peer else "")
        )
        print(
            f"[samplers] {name} eps={eps:g}: {row['samples_per_s']:.3g}/s, time "
            f"{row['ours_over_limit_time']:.2f}x {limit}{extra}, load {row['load']:.2f}",
            flush=True,
        )

    for eps in (0.1, 1.0, 5.0):
        stair = Staircase.optimal(epsilon=eps, cost="abs")
        b_s, t_s = timings(lambda s=stair: s.rvs(size, rng=rng), repeat)
        t_l = median_seconds(lambda e=eps: rng.laplace(0.0, 1.0 / e, size=size), repeat)
        peer = _dpl_staircase_rate(eps, float(stair.gamma), 20_000 if quick else 100_000)
        add("Staircase.rvs", eps, t_s, "numpy laplace", t_l, peer, t_best=b_s)
    for eps, delta in ((1.0, 1), (1.0, 5), (0.1, 10)):
        disc = DiscreteStaircase.optimal(epsilon=eps, sensitivity=delta, cost="abs")
        p = -math.expm1(-eps / delta)
        b_d, t_d = timings(lambda d=disc: d.rvs(size, rng=rng), repeat)
        t_g = median_seconds(lambda p=p: rng.geometric(p, size=size), repeat)
        add(f"DiscreteStaircase.rvs (D={delta})", eps, t_d, "numpy geometric", t_g, t_best=b_d)
    for delta in (0.01, 0.1):
        ua = UniformAtom.optimal(delta=delta, cost="abs")
        b_u, t_u = timings(lambda u=ua: u.rvs(size, rng=rng), repeat)
        t_n = median_seconds(lambda: rng.uniform(-1.0, 1.0, size=size), repeat)
        add(f"UniformAtom.rvs (delta={delta:g})", 0.0, t_u, "numpy uniform", t_n, t_best=b_u)
    exact_count = 2 * 10**4 if quick else 2 * 10**5
    bits = random.Random(12345)
    designed = design_noise(PureDP(1.0), sensitivity=1, cost="abs", integer=True)
    for name, noise in (
        ("Geometric", Geometric(epsilon=1.0)),
        ("Geometric", Geometric(epsilon=0.1)),
        ("DiscreteStaircase (D=5, r=2)", DiscreteStaircase(epsilon=1.0, sensitivity=5, r=2)),
        ("designed lattice (D=1)", designed),
    ):
        t_f = median_seconds(lambda n=noise: n.rvs(exact_count, rng=rng), repeat)
        # The default bit source is the operating system's (secrets.SystemRandom: noise that
        # protects privacy must not be predictable); random.Random (a seeded Mersenne Twister,
        # for reproducible draws) is faster. Both are measured.
        for source, bit_rng in (("default: SystemRandom", None), ("random.Random", bits)):
            b_x, t_x = timings(
                lambda n=noise, b=bit_rng: n.sample_exact(exact_count, rng=b), repeat
            )
            add(
                f"{name}.sample_exact (rng={source})",
                noise.epsilon,
                t_x,
                "its float rvs",
                t_f,
                None,
                exact_count,
                t_best=b_x,
            )
    return rows
