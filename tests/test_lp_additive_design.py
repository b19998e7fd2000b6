"""The designed mechanism object, repairs of non-private solver points, and bad input.

The repairs are exercised on solver points damaged on purpose (a zero cell deep in the support,
an inflated outer cell), so the certification has something to catch; the repaired noise is
certified again, independently of the LP's rows.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import optmech
from optmech.certify.noise_certificate import certify_noise
from optmech.exceptions import (
    InaccurateSolutionWarning,
    PrivacyViolationError,
    ProblemTooLargeError,
    SolverError,
)
from optmech.lp.additive import (
    AdditiveSpec,
    build_additive_lp,
    estimate_additive_size,
    finish_design,
)
from optmech.lp.additive.designed import DesignedLatticeNoise, DesignedPiecewiseNoise
from optmech.lp.additive.rows import virtual_rows
from optmech.lp.design import design_noise
from optmech.lp.solve import solve


def test_designed_density_is_a_first_class_mechanism() -> None:
    noise = design_noise(optmech.PureDP(1.0), sensitivity=2.0, cost="abs", resolution=8, periods=2)
    assert isinstance(noise, DesignedPiecewiseNoise)
    assert noise.status == "optimal" and noise.solver in ("HIGHS", "CLARABEL")
    assert noise.solve_time >= 0 and noise.max_violation <= 1e-7
    assert noise.record.lp_objective == pytest.approx(noise.value, rel=1e-7)
    assert noise.grid[0] == -4.0 and noise.grid[-1] == 4.0 and noise.grid.size == 33
    assert noise.sensitivity == 2.0 and noise.privacy == optmech.PureDP(1.0)
    # The cost scales with Δ: V* = Δ e^(ε/2)/(e^ε − 1) (Geng & Viswanath 2016).
    assert noise.value >= 2.0 * math.exp(0.5) / (math.e - 1) * (1 - 1e-9)
    x = np.linspace(-10, 10, 7)
    assert np.all(noise.pdf(x) > 0) and noise.cdf(0.0) == pytest.approx(0.5, abs=1e-12)
    assert noise.rvs(5, rng=0).shape == (5,)
    assert noise.ppf(0.5) == pytest.approx(0.0, abs=1e-9)
    cert = certify_noise(noise)  # the public certifier agrees with the recorded numbers
    assert cert.epsilon == noise.certified_epsilon
    data = json.loads(json.dumps(noise.to_dict(), allow_nan=False))
    assert data["provenance"]["status"] == "optimal" and data["grid_kind"] == "uniform"
    assert "DesignedPiecewiseNoise(1-DP" in repr(noise)


def test_designed_pmf_is_a_first_class_mechanism() -> None:
    noise = design_noise(
        optmech.PureDP(1.0), sensitivity=3, cost="squared", integer=True, periods=2
    )
    assert isinstance(noise, DesignedLatticeNoise)
    assert noise.grid[0] == -6 and noise.grid[-1] == 6
    assert float(np.sum(noise.pmf(np.arange(-400, 401)))) == pytest.approx(1.0, abs=1e-12)
    draws = noise.rvs(100, rng=1)
    assert np.all(draws == np.round(draws))
    assert "DesignedLatticeNoise(1-DP" in repr(noise)


def _solved(privacy, **kw):
    lp = build_additive_lp(AdditiveSpec(privacy, sensitivity=1.0, **kw))
    return lp, solve(lp.problem, solver="HIGHS", kind="additive")


def test_envelope_repair_of_a_zeroed_cell() -> None:
    """A zeroed cell (ε = inf) is raised back; with an inflated neighbour as well, the least
    private raise costs more than the optimum, the certified interval shows it and a warning
    says so. A zeroed cell alone is restored to the optimum exactly (it is raised to its
    binding ratio bound), so the interval stays narrow and nothing is said: the repair is in
    the record."""
    lp, result = _solved(
        optmech.PureDP(1.0), cost="abs", resolution=6, periods=2, reduce_symmetric=False
    )
    optimum = np.array(lp.variable.value)
    point = optimum.copy()
    point[2] = 0.0  # a zero cell next to positive ones: ε = inf
    lp.variable.value = point
    quiet = finish_design(lp, result)  # filterwarnings = error: no warning may be issued
    assert quiet.repair.kind == "envelope" and quiet.record.raw_certified_epsilon == math.inf
    assert quiet.provenance.within_accuracy and quiet.lower_bound <= quiet.value
    point[3] *= 5.0  # an inflated neighbour: the raise must lift cells around it
    lp.variable.value = point
    with pytest.raises(PrivacyViolationError, match="not 1-DP"):
        finish_design(lp, result, allow_repair=False)
    with pytest.warns(InaccurateSolutionWarning, match="repaired by envelope"):
        noise = finish_design(lp, result)
    assert noise.record.raw_certified_epsilon == math.inf
    assert noise.repair.kind == "envelope"
    assert noise.certified_epsilon <= 1.0 * (1 + 1e-9)
    assert noise.repair.cost > 0.0  # raising cells costs something ...
    assert noise.value >= math.exp(0.5) / (math.e - 1) * (1 - 1e-9)  # ... and V* bounds it
    assert noise.value == pytest.approx(noise.expected_cost("abs"), rel=1e-14)
    assert noise.lower_bound == pytest.approx(quiet.lower_bound, rel=1e-9)  # same multipliers
    assert not noise.provenance.within_accuracy


def test_mixture_repair_of_an_inflated_cell() -> None:
    delta = 1e-2
    lp, result = _solved(optmech.ApproxDP(1.0, delta), cost="abs", resolution=6, periods=6)
    point = np.array(lp.variable.value)
    point[0] += 0.05  # extra mass in the outermost (half-grid) cell: δ exceeded
    lp.variable.value = point
    with pytest.raises(PrivacyViolationError, match="δ"):
        finish_design(lp, result, allow_repair=False)
    with pytest.warns(InaccurateSolutionWarning, match="repaired by mixture"):
        noise = finish_design(lp, result)
    assert noise.record.raw_certified_delta > delta
    assert noise.repair.kind == "mixture" and "lambda" in noise.record.repair_detail
    assert noise.certified_delta <= delta
    assert noise.certified_delta >= 0.99 * delta  # the least mixture (12 bisection steps)


def test_solver_choice_and_overrides() -> None:
    kw = {"sensitivity": 1.0, "cost": "abs", "resolution": 6, "periods": 2}
    a = design_noise(optmech.PureDP(1.0), solver="CLARABEL", **kw)
    b = design_noise(optmech.PureDP(1.0), solver="highs", **kw)
    assert a.solver == "CLARABEL" and b.solver == "HIGHS"
    assert a.value == pytest.approx(b.value, rel=1e-7)
    with pytest.raises(ValueError, match="solver"):
        design_noise(optmech.PureDP(1.0), solver="NOPE", **kw)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"resolution": 0}, ValueError, "resolution"),
        ({"periods": 0}, ValueError, "periods"),
        ({"sensitivity": -1.0}, ValueError, "sensitivity"),
        ({"sensitivity": 2.5, "integer": True}, ValueError, "integer"),
        ({"sensitivity": 3, "integer": True, "resolution": 6}, ValueError, "resolution"),
        ({"atom": True}, ValueError, "atom"),
        ({"window": "bogus"}, ValueError, "window"),
        ({"symmetric": "yes"}, TypeError, "symmetric"),
        ({"cost": 3}, TypeError, "cost"),
        ({"cost": lambda e: np.where(e > 0.5, np.nan, np.abs(e))}, ValueError, "NaN"),
        ({"max_memory_gb": 1e-6}, ProblemTooLargeError, "GB"),
        ({"resolution": 10**5, "periods": 100}, ProblemTooLargeError, "max_memory_gb"),
    ],
)
def test_bad_input_is_refused_clearly(kwargs, error, match) -> None:
    base = {"sensitivity": 1.0, "cost": "abs", "resolution": 4, "periods": 2}
    base.update(kwargs)
    with pytest.raises(error, match=match):
        design_noise(optmech.PureDP(1.0), **base)


def test_infeasible_combinations() -> None:
    with pytest.raises(TypeError, match="privacy"):
        design_noise(1.0, sensitivity=1.0, cost="abs")  # type: ignore[arg-type]
    # (0, δ): a support of 2K sensitivities forces δ ≥ 1/(2K) — refused before building.
    with pytest.raises(ValueError, match=r"periods.*at least 5"):
        design_noise(optmech.ApproxDP(0.0, 0.1), sensitivity=1.0, cost="abs", periods=2)
    # (ε, δ) with a support no (ε, δ)-DP noise fills: refused before building.
    with pytest.raises(ValueError, match=r"`periods` must be at least"):
        design_noise(
            optmech.ApproxDP(0.5, 0.01), sensitivity=1.0, cost="abs", resolution=4, periods=1
        )
    # ... and one the bound allows but the LP's grid does not fill: the error says what to do.
    with pytest.raises(SolverError, match="raise `periods`"):
        design_noise(
            optmech.ApproxDP(0.5, 0.05), sensitivity=1.0, cost="abs", resolution=4, periods=4
        )


@pytest.mark.parametrize(
    ("privacy", "kw"),
    [
        (optmech.PureDP(1.0), {"cost": "abs", "resolution": 10, "periods": 3}),
        (optmech.PureDP(1.0), {"cost": "asym:2,1", "resolution": 30, "periods": 3}),
        (
            optmech.PureDP(1.0),
            {"cost": "asym:2,1", "resolution": 8, "periods": 3, "monotone": True},
        ),
        (optmech.ApproxDP(1.0, 0.01), {"cost": "abs", "resolution": 6, "periods": 7}),
        (optmech.ApproxDP(0.0, 0.2), {"cost": "asym:2,1", "resolution": 6, "monotone": True}),
    ],
)
def test_size_estimate_is_made_before_building_and_bounds_the_lp(privacy, kw) -> None:
    lp = build_additive_lp(AdditiveSpec(privacy, sensitivity=1.0, **kw))
    est = estimate_additive_size(
        privacy,
        grid_n=lp.grid.n,
        period=lp.grid.period,
        symmetric=lp.reduced,
        monotone=lp.monotone,
        window=lp.window if lp.window in ("pairs", "sparse-table", "blocks") else "blocks",
        atom=lp.atom_index is not None,
        virtual=virtual_rows(lp.grid, lp.tail_ratio),
    )
    rows = lp.a_ub.shape[0] + 1
    nnz = lp.a_ub.nnz + lp.a_eq.nnz
    assert est["variables"] == lp.c.size
    assert rows <= est["rows"] <= 1.2 * rows + 10
    assert nnz <= est["nonzeros"] <= 2 * nnz + 10
