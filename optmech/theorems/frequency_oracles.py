"""Checks of the frequency oracles' closed forms against their matrices, group ``local``.

For each family of `optmech.mechanisms.frequency_oracles` at k ∈ {2, 5, 16} (OUE, with its
2^k outputs, at k ≤ 12) and two ε, the
closed forms the shuffle bounds and the estimator use are compared with the same quantities
computed by brute force from the channel's matrix (`randomizer`):

* ε₀ = max over columns of log(max/min), and p = q = its exponential (Wang et al., PVLDB 2024);
* the blanket mass γ = Σ_y min_x R(y|x) (Balle, Bell, Gascón & Nissim 2019);
* the clone probability, min over pairs x⁰ ≠ x¹ and outputs of
  2 min_x R(y|x) / (R(y|x⁰) + R(y|x¹));
* β, the largest total variation between two rows;
* the estimator's variance for an item nobody holds, q*(1 − q*)/(p* − q*)² (Wang et al.,
  USENIX Security 2017, Theorem 2), with p* and q* read from the matrix: the probability of
  the reports supporting item 0 (found from the output *names*, by each family's definition)
  under input 0 and under every other input (which must all agree).

Tolerance: the closed forms are rounded by 1e-14 relative (outward), the matrix's sums over m
outputs carry at most m·2⁻⁵³ relative; a row passes when every quantity agrees within
``2e-14 + 4·m·2⁻⁵³`` relative.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from optmech.mechanisms.frequency_oracles import (
    GRR,
    OLH,
    OUE,
    HadamardResponse,
    SubsetSelection,
)
from optmech.theorems._support import timed
from optmech.theorems.catalogue import CheckResult, check_cases, compare, guarded

__all__ = ["oracle_rows"]

GROUP = "local"
#: OUE has 2^k outputs: its rows stop at k = 12 (4096 outputs), to keep them fast.
OUE_MAX_K = 12
FAMILIES: dict[str, Any] = {
    "GRR": GRR,
    "OUE": OUE,
    "OLH": OLH,
    "HadamardResponse": HadamardResponse,
    "SubsetSelection": SubsetSelection,
}


def _supports_item_0(oracle: Any, names: np.ndarray) -> np.ndarray:
    """Whether each output (by its name) supports item 0, from the family's definition."""
    text = [str(y) for y in names.tolist()]
    if isinstance(oracle, GRR):
        return np.array([int(t) == 0 for t in text])
    if isinstance(oracle, HadamardResponse):  # row 1 of the Hadamard matrix: bit 0 of y even
        return np.array([int(t) % 2 == 0 for t in text])
    if isinstance(oracle, OUE):
        return np.array([t[0] == "1" for t in text])
    if isinstance(oracle, OLH):  # h_s(0) = b = s mod g
        pairs = [t[1:].split(":") for t in text]
        g = oracle.output_size // oracle.hashes  # the hash range
        return np.array([int(y) == int(s) % g for s, y in pairs])
    return np.array(["0" in t.strip("{}").split(",") for t in text])


def _brute(oracle: Any) -> dict[str, float]:
    m = oracle.randomizer.matrix
    floor, top = m.min(axis=0), m.max(axis=0)
    ratio = float(np.max(top / floor))
    tv, clone = 0.0, math.inf
    for i in range(m.shape[0] - 1):
        rest = m[i + 1 :]
        tv = max(tv, 0.5 * float(np.max(np.abs(rest - m[i]).sum(axis=1))))
        clone = min(clone, float(np.min(2 * floor / (rest + m[i]))))
    support = m @ _supports_item_0(oracle, oracle.randomizer.outputs)
    p, others = float(support[0]), support[1:]
    q = float(others.mean())
    return {
        "ε₀": math.log(ratio),
        "p = q = e^ε₀": ratio,
        "γ": float(floor.sum()),
        "clone probability": clone,
        "β": tv,
        "variance (f = 0)": q * (1 - q) / (p - q) ** 2,
        "q* spread": float(others.max() - others.min()),
    }


def _row(name: str, k: int, eps: float) -> CheckResult:
    oracle = FAMILIES[name](k, eps)
    truth = _brute(oracle)
    p, beta, q = oracle.variation_ratio
    closed = {
        "ε₀": oracle.local_epsilon,
        "p = q = e^ε₀": max(p, q),
        "γ": oracle.blanket_mass,
        "clone probability": oracle.clone_probability,
        "β": beta,
        "variance (f = 0)": float(oracle.variance(1)[0]),
    }
    gaps = {key: abs(closed[key] - truth[key]) / abs(truth[key]) for key in closed}
    worst = max(gaps.values())
    outputs = oracle.output_size
    tol = 2e-14 + 4 * outputs * 2.0**-53
    # every input but 0 supports item 0 with one probability q* (a pure protocol)
    spread = truth["q* spread"] / max(truth["variance (f = 0)"], 1.0)
    detail = "; ".join(f"{key}: {closed[key]:.15g} vs {truth[key]:.15g}" for key in closed)
    return compare(
        f"{name}: closed forms = its matrix",
        f"k={k}, eps={eps:g}, {outputs} outputs",
        max(worst, spread),
        0.0,
        tol,
        group=GROUP,
        detail=f"largest relative gap {worst:.3g}; {detail}; tolerance: 1e-14 rounding of "
        "each closed form (twice) and m·2^-53 of the matrix's sums (four times)",
    )


def oracle_rows(epsilons: list[float], ks: list[int]) -> list[CheckResult]:
    """One row per family, k and ε."""
    return [
        guarded(
            f"{name}: closed forms = its matrix",
            f"k={k}, eps={eps:g}",
            functools.partial(timed, _row, name, k, eps),
            group=GROUP,
        )
        for name in FAMILIES
        for k in dict.fromkeys(min(k, OUE_MAX_K) if name == "OUE" else k for k in ks)
        for eps in epsilons
    ]


check_cases(
    "frequency oracles: closed forms = their matrices",
    "frequency oracles: closed forms = their matrices (sweep)",
    group=GROUP,
    rows=oracle_rows,
    quick={"epsilons": [0.5, 1.5], "ks": [2, 5, 16]},
    sweep={"epsilons": [0.1, 1.0, 2.5], "ks": [3, 4, 7, 9]},
)
