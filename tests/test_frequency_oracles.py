"""Frequency oracles (``optmech.mechanisms.frequency_oracles``) against their own matrices.

Every closed form is checked against the channel's matrix at small k, computed here by brute
force: ε₀ (largest log ratio in a column), the blanket mass Σ_y min_x R(y|x), the clone
probability (the smallest 2 min_x R(y|x) / (R(y|x⁰) + R(y|x¹)) over outputs and pairs), the
variation ratio (p, β, q) over every pair of rows, and the lower bound's output-set laws. The
estimator is checked exactly: reports are enumerated from the matrix's output *names* (parsed
here, independent of the estimator's report handling), so E[estimate | x] and the variance of
the estimate over a fixed dataset are matrix products. The sampler is checked against the
matrix by a chi-square test per input (fixed seeds; p-value threshold 1e-6 per test, so a
false failure has probability below 1e-4 over the whole file).
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from scipy.stats import chisquare

import optmech
from optmech.mechanisms.frequency_oracles import (
    GRR,
    MAX_OUTPUTS,
    OLH,
    OUE,
    HadamardResponse,
    SubsetSelection,
)

FAMILIES = (GRR, OUE, OLH, HadamardResponse, SubsetSelection)
CASES = [
    (family, k, eps)
    for family in FAMILIES
    for k in (2, 3, 5, 16)
    for eps in (0.5, 1.3)
    if not (family is OUE and k == 16)  # 2^16 outputs: kept to the slow test below
]


def _id(case: Any) -> str:
    family, k, eps = case
    return f"{family.__name__}-k{k}-eps{eps}"


def parse(oracle: Any, name: Any) -> Any:
    """The report of an output of the matrix, read from its name."""
    if isinstance(oracle, GRR | HadamardResponse):
        return int(name)
    if isinstance(oracle, OUE):
        return np.array([c == "1" for c in str(name)])
    if isinstance(oracle, OLH):
        s, y = str(name)[1:].split(":")
        return np.array([int(s), int(y)])
    return np.array([int(v) for v in str(name).strip("{}").split(",")])


def per_report(oracle: Any) -> npt.NDArray[np.float64]:
    """E[y, v]: the estimate of item v from the single report of output y."""
    names = oracle.randomizer.outputs
    return np.stack([oracle.estimate(np.array([parse(oracle, y)])) for y in names])


def brute(matrix: npt.NDArray[np.float64]) -> dict[str, float]:
    """ε₀, γ, clone probability and (p, β, q) by brute force over the rows."""
    floor = matrix.min(axis=0)
    out = {"ratio": 0.0, "tv": 0.0, "clone": math.inf, "q": 0.0}
    rows = range(matrix.shape[0])
    for i in rows:
        for j in rows:
            if i == j:
                continue
            out["ratio"] = max(out["ratio"], float(np.max(matrix[i] / matrix[j])))
            out["tv"] = max(out["tv"], 0.5 * float(np.abs(matrix[i] - matrix[j]).sum()))
            out["clone"] = min(out["clone"], float(np.min(2 * floor / (matrix[i] + matrix[j]))))
        out["q"] = max(out["q"], float(np.max(matrix[i][None, :] / matrix)))
    out["gamma"] = float(floor.sum())
    return out


@pytest.fixture(params=CASES, ids=_id)
def oracle(request: Any) -> Any:
    family, k, eps = request.param
    o = family(k, eps)
    if o.output_size > 10_000:
        pytest.skip("too many outputs for the brute force")
    return o


def test_closed_forms_match_the_matrix(oracle: Any) -> None:
    q = oracle.randomizer
    truth = brute(q.matrix)
    assert oracle.local_epsilon >= oracle.epsilon
    assert oracle.local_epsilon == pytest.approx(math.log(truth["ratio"]), rel=1e-12)
    assert oracle.local_epsilon == pytest.approx(q.epsilon, rel=1e-12)
    assert oracle.blanket_mass == pytest.approx(truth["gamma"], rel=1e-12)
    assert oracle.blanket_mass <= truth["gamma"] * (1 + 1e-15)
    assert oracle.clone_probability == pytest.approx(truth["clone"], rel=1e-12)
    p, beta, qq = oracle.variation_ratio
    assert p == pytest.approx(truth["ratio"], rel=1e-12)
    assert beta == pytest.approx(truth["tv"], rel=1e-12, abs=1e-15)
    assert qq == pytest.approx(truth["q"], rel=1e-12)


def test_description_laws_are_laws_of_the_matrix(oracle: Any) -> None:
    m = oracle.randomizer.matrix
    d = oracle.shuffle_description()
    est = per_report(oracle)
    # the first count law is the set of reports supporting an item: (q*, p*)
    support = (m @ (est[:, :1] != est[:, :1].min())).ravel()  # P(report supports item 0)
    lo, hi = d.count_laws[0]
    assert (support.min(), support.max()) == pytest.approx((lo, hi), rel=1e-12)
    # two outputs: the exact method's law, the last column's extremes
    assert (d.binary is not None) == (m.shape[1] == 2)
    if d.binary is not None:
        assert d.binary == pytest.approx((m[:, -1].max(), m[:, -1].min()), rel=1e-12)
    if d.pair_laws:
        check_pair_laws(oracle)


def check_pair_laws(oracle: Any) -> None:
    """The lower bound's four-set laws are those of the matrix's rows and output sets: user 1
    at input a ∈ {0, 1} against the other, every other user at a row o, S0 (S1) the outputs
    likelier under input 0 (1), S2 the other outputs likelier under o than under input 0
    (empty when o is input 0 or 1, whose rows agree there)."""
    m = oracle.randomizer.matrix
    s0, s1 = m[0] > m[1] * (1 + 1e-12), m[1] > m[0] * (1 + 1e-12)
    laws = np.stack([m[:, s0].sum(axis=1), m[:, s1].sum(axis=1)], axis=1)
    pairs = oracle.shuffle_description().pair_laws
    assert pairs
    for first, second, others in pairs:
        a = 0 if first[:2] == pytest.approx(laws[0], rel=1e-12) else 1
        assert first[:2] == pytest.approx(laws[a], rel=1e-12)
        assert second[:2] == pytest.approx(laws[1 - a], rel=1e-12)
        rows = np.flatnonzero(np.max(np.abs(laws - others[:2]), axis=1) < 1e-12)
        found = [np.inf]
        for o in rows:
            s2 = ~(s0 | s1) & (m[o] > m[0] * (1 + 1e-12))
            law2 = m[[a, 1 - a, o]][:, s2].sum(axis=1)
            found.append(np.max(np.abs(law2 - [first[2], second[2], others[2]])))
        assert min(found) < 1e-12  # the law of a row, with its S2
        for law in (first, second, others):
            assert law.size == 4 and law.min() >= 0.0
            assert law.sum() == pytest.approx(1.0, rel=1e-12)
    # the first: the others outside the pair where one is (S2 non-empty)
    first, _, others = pairs[0]
    assert first[2] > 0.0 or oracle.k < 3 or others[:2] == pytest.approx(first[:2])


@pytest.mark.parametrize(("k", "eps"), [(3, 0.5), (5, 1.3), (4, 2.0)])
def test_olh_with_binary_hashes_gives_laws_of_the_matrix(k: int, eps: float) -> None:
    """g = 2 (never the default at these k): S2 is where h(0) = h(1) ≠ h(2), a quarter of
    the hashes."""
    oracle = OLH(k, eps, g=2)
    assert oracle.shuffle_description().pair_laws[0][0][2] > 0.0
    check_pair_laws(oracle)


def test_estimator_is_unbiased_exactly(oracle: Any) -> None:
    expected = oracle.randomizer.matrix @ per_report(oracle)  # E[estimate | x], row x
    np.testing.assert_allclose(expected, np.eye(oracle.k), atol=1e-12)


def test_variance_is_exact(oracle: Any) -> None:
    m, est = oracle.randomizer.matrix, per_report(oracle)
    n = 7 * oracle.k
    holders = np.arange(oracle.k) % 3 + 1  # users per item, n in all
    holders = np.round(holders / holders.sum() * n).astype(int)
    holders[0] += n - holders.sum()
    per_user = m @ est**2 - (m @ est) ** 2  # Var of one user's estimate, by input
    truth = holders @ per_user / n**2
    np.testing.assert_allclose(oracle.variance(n, holders / n), truth, rtol=1e-10, atol=1e-15)


SAMPLED = [GRR(4, 1.0), OUE(3, 0.7), OLH(4, 1.0), HadamardResponse(5, 1.2), SubsetSelection(5, 0.4)]


@pytest.mark.parametrize("oracle", SAMPLED, ids=lambda o: type(o).__name__)
def test_sampler_draws_the_matrix(oracle: Any) -> None:
    q = oracle.randomizer
    index = {json.dumps(np.asarray(parse(oracle, y)).tolist()): j for j, y in enumerate(q.outputs)}
    draws = 20_000
    for x in range(oracle.k):
        reports = oracle.rvs(x, size=draws, rng=100 + x)
        cols = [index[json.dumps(np.asarray(r).tolist())] for r in reports]
        counts = np.bincount(cols, minlength=q.outputs.size)
        assert chisquare(counts, q.matrix[x] * draws).pvalue > 1e-6


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.__name__)
def test_estimate_of_sampled_reports(family: Any) -> None:
    o = family(8, 1.0)
    truth = np.array([0.4, 0.2, 0.1, 0.1, 0.1, 0.05, 0.05, 0.0])
    x = np.repeat(np.arange(8), (truth * 4000).astype(int))
    est = o.estimate(o.rvs(x, rng=7))
    sd = np.sqrt(o.variance(x.size, truth))
    # 6 standard deviations per item: a false failure below 1e-8 per item
    assert np.all(np.abs(est - truth) < 6 * sd)


@pytest.mark.parametrize(
    "oracle",
    [
        GRR(2, 1.0),
        SubsetSelection(2, 0.7),
        GRR(5, 0.8),
        OUE(4, 1.0),
        OLH(5, 1.0),
        OLH(3, 0.5, g=2),
        HadamardResponse(5, 1.0),
        SubsetSelection(6, 0.5),
    ],
    ids=lambda o: f"{type(o).__name__}{o.k}",
)
def test_shuffle_epsilon_of_oracle_equals_matrix(oracle: Any) -> None:
    for n, delta in ((300, 1e-4), (5000, 1e-6)):
        a = optmech.shuffle_epsilon(oracle, n, delta)
        b = optmech.shuffle_epsilon(oracle.randomizer, n, delta)
        assert a.method == b.method
        assert a.epsilon == pytest.approx(b.epsilon, rel=1e-8)
        assert set(a.bounds) == set(b.bounds)
        for name in a.bounds:
            # ε₀ of the float matrix differs from ε by a few ulps; the searches stop at 1e-9
            assert a.bounds[name] == pytest.approx(b.bounds[name], rel=1e-8)
        assert 0.0 < a.lower_bound <= a.epsilon
        assert a.randomizer is None


@pytest.mark.slow
def test_shuffle_epsilon_at_large_k_without_a_matrix() -> None:
    o = OLH(1 << 20, 1.0)
    with pytest.raises(ValueError, match=r"`k` = 1048576.*65536"):
        _ = o.randomizer
    g = optmech.shuffle_epsilon(o, 10**5, 1e-6)
    small = optmech.shuffle_epsilon(OLH(5, 1.0, g=o.g), 10**5, 1e-6)
    # without a channel the clone and blanket bounds read ε₀ and the clone probability only,
    # the same at k = 5, where the small channel also gives a variation-ratio bound and the
    # blanket's lattice form, which can only lower the blanket bound (not at k = 2^20)
    assert "variation-ratio" not in g.bounds and "variation-ratio" in small.bounds
    assert g.bounds["clones"] == pytest.approx(small.bounds["clones"], rel=1e-12)
    assert g.bounds["blanket"] >= small.bounds["blanket"]
    assert 0.0 < g.lower_bound <= g.epsilon < g.local_epsilon
    assert OUE(64, 1.0).output_size == 1 << 64
    h = optmech.shuffle_epsilon(OUE(64, 1.0), 10**4, 1e-6)
    assert h.lower_bound <= h.epsilon


@pytest.mark.slow
def test_oue_at_the_output_limit() -> None:
    o = OUE(16, 1.0)
    assert o.output_size == MAX_OUTPUTS
    m = o.randomizer.matrix
    assert float(m.min(axis=0).sum()) == pytest.approx(o.blanket_mass, rel=1e-12)
    with pytest.raises(ValueError, match="`k` = 17"):
        _ = OUE(17, 1.0).randomizer


@pytest.mark.slow
def test_estimate_at_large_k() -> None:
    o = OLH(1 << 20, 2.0)
    est = o.estimate(o.rvs(np.arange(30), rng=1))
    assert est.shape == (1 << 20,) and np.all(np.isfinite(est))
    h = HadamardResponse(1 << 20, 1.0)
    assert h.estimate(h.rvs(np.zeros(30, dtype=int), rng=2)).shape == (1 << 20,)


def test_defaults_minimise_the_variance() -> None:
    e = math.exp(1.0)
    assert OLH(10, 1.0).g == 3  # e + 1 ≈ 3.72: 3 beats 5
    assert OLH(10, math.log(3.0)).g == 5  # e + 1 = 4: 3 or 5, 5 has the smaller variance
    for eps in (0.3, 1.0, 2.0):
        o = SubsetSelection(20, eps)
        best = min(range(1, 20), key=lambda d: SubsetSelection(20, eps, d=d).variance(1)[0])
        centre = 20 / (math.exp(eps) + 1)
        assert abs(o.d - centre) < 1 or o.d == best
        assert o.variance(1)[0] <= SubsetSelection(20, eps, d=best).variance(1)[0] * 1.05
    assert OUE(5, 1.0).variance(1)[0] == pytest.approx(4 * e / (e - 1) ** 2)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: GRR(1, 1.0), "`k`"),
        (lambda: GRR(3, 0.0), "`epsilon`"),
        (lambda: OUE(3, float("nan")), "`epsilon`"),
        (lambda: OLH(5, 1.0, g=4), "`g` must be a prime"),
        (lambda: OLH(5, 30.0), "`epsilon`"),
        (lambda: SubsetSelection(5, 1.0, d=5), "`d`"),
        (lambda: GRR(3, 1.0).rvs(3), "`x`"),
        (lambda: GRR(3, 1.0).estimate([0, 5]), "`reports`"),
        (lambda: GRR(3, 1.0).estimate([]), "`reports`"),
        (lambda: OUE(3, 1.0).estimate(np.zeros((2, 4), dtype=bool)), "`reports`"),
        (lambda: OLH(5, 1.0).estimate([[0, 9]]), "`reports`"),
        (lambda: SubsetSelection(5, 1.0).estimate([[0, 1, 2, 3]]), "`reports`"),
        (lambda: GRR(3, 1.0).variance(0), "`n`"),
        (lambda: GRR(3, 1.0).variance(5, [0.5, 0.6, 0.0]), "`frequencies`"),
        (lambda: GRR(3, 1.0).rvs(0, size=(2, 3, -1)), "`size`"),
    ],
)
def test_bad_input_names_the_parameter(call: Any, match: str) -> None:
    with pytest.raises((ValueError, TypeError), match=match):
        call()


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.__name__)
def test_display(family: Any) -> None:
    o = family(4, 1.0)
    text = o.summary()
    assert text.splitlines()[0] == family.__name__ and "blanket mass" in text
    assert o._repr_html_().startswith('<table class="optmech-summary">')
    d = json.loads(json.dumps(o.to_dict()))
    assert d["result"] == family.__name__ and d["k"] == 4
    assert d["blanket_mass"] == o.blanket_mass


def test_frozen() -> None:
    o = GRR(3, 1.0)
    with pytest.raises(AttributeError):
        o.k = 4  # type: ignore[misc]
    assert GRR(3, 1.0) == o and hash(GRR(3, 1.0)) == hash(o)


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.__name__)
def test_sampler_shapes(family: Any) -> None:
    o = family(6, 1.0)
    tails = {GRR: (), HadamardResponse: (), OUE: (6,), OLH: (2,)}
    tail = tails[family] if family in tails else (o.d,)
    one = o.rvs(2, rng=1)
    assert np.shape(one) == tail
    if tail == ():
        assert isinstance(one, int)
    assert o.rvs(2.0, rng=1) == one if tail == () else np.array_equal(o.rvs(2.0, rng=1), one)
    assert o.rvs([1, 2], size=(3, 2), rng=1).shape == (3, 2, *tail)
    assert o.rvs(0, size=0, rng=1).shape == (0, *tail)
    np.testing.assert_array_equal(o.rvs(3, 10, rng=7), o.rvs(3, 10, rng=np.random.default_rng(7)))


@pytest.mark.parametrize("k", [2, 3, 7])
def test_grr_closed_form_decomposition_equals_its_matrix(k: int) -> None:
    """The variation-ratio bound of GRR from its closed-form decomposition (no matrix) and
    from its channel agree; at k = 300 (no small-channel path) the closed form still runs."""
    o = GRR(k, 2.0)
    a = optmech.shuffle_epsilon(o, 10**4, 1e-6, method="variation-ratio")
    b = optmech.shuffle_epsilon(o.randomizer.matrix, 10**4, 1e-6, method="variation-ratio")
    assert a.epsilon == pytest.approx(b.epsilon, rel=1e-7)
    assert a.epsilon >= b.epsilon * (1 - 1e-7)  # never tighter than the matrix's own
    big = optmech.shuffle_epsilon(GRR(300, 2.0), 10**4, 1e-6)
    assert big.method == "variation-ratio" and big.randomizer is None
