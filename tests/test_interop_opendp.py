"""OpenDP interop: measurements that run, and whose privacy map is the certified guarantee
(the design's record, the certifier's or the closed form's, computed by optmech), with group
privacy ``ε·⌈d/Δ⌉`` beyond the sensitivity for pure ε-DP."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import optmech
from optmech.mechanisms.piecewise import LatticeNoise


def test_geometric_noise_runs_and_maps_its_epsilon() -> None:
    m = optmech.Geometric(epsilon=0.8, sensitivity=2).to_opendp()
    assert isinstance(m(10), int)
    assert m.map(2) == 0.8 and m.map(3) == 1.6 and m.map(0) == 0.0


def test_designed_lattice_noise_maps_its_certified_epsilon() -> None:
    noise = optmech.design_noise(optmech.PureDP(0.7), sensitivity=3, cost="abs", integer=True)
    m = noise.to_opendp()
    assert isinstance(m(100), int)
    assert m.map(3) == noise.certified_epsilon
    assert m.map(4) == 2 * noise.certified_epsilon


def test_approximate_designs_map_epsilon_and_the_certified_delta() -> None:
    """δ of the sampled law: the certified δ divided by the stored pmf's exact sum (the sampler
    normalises), rounded up; a bare (ε, δ) LatticeNoise maps the same (ε, δ), not ε = inf."""
    noise = optmech.design_noise(
        optmech.ApproxDP(1.0, 1e-3), sensitivity=2, cost="abs", integer=True
    )
    m = noise.to_opendp()
    eps, delta = m.map(2)
    assert eps == 1.0
    assert Fraction(delta) >= Fraction(noise.certified_delta) / noise.exact_total
    assert delta == pytest.approx(noise.certified_delta, rel=1e-12)
    with pytest.raises(Exception, match="certified for shifts up to the sensitivity"):
        m.map(3)
    start = int(noise.start)
    bare = LatticeNoise(
        start=start,
        pmf=noise.pmf(np.arange(start, start + noise.num_cells)),
        period=noise.period,
        privacy=optmech.ApproxDP(1.0, 1e-3),
        sensitivity=2,
    )
    assert bare.to_opendp().map(2) == (1.0, delta)


def test_count_mechanism_releases_a_count() -> None:
    user = optmech.bayesian_mechanism(np.full(6, 1 / 6), "abs", 0.5)
    m = user.to_opendp()
    assert m(3) in range(6)
    # Each row is sampled divided by its own exact sum: ε grows by log(max T / min T) at most.
    totals = [sum(map(Fraction, row.tolist()), Fraction(0)) for row in user.mechanism]
    x = float(max(totals) / min(totals) - 1)
    excess = x - x * x  # below log(1 + x) for 0 ≤ x < 1
    assert m.map(1) == user.sampled_epsilon()
    assert user.certified_epsilon + excess <= m.map(1) <= user.certified_epsilon + 1e-12
    assert m.map(2) == 2 * user.sampled_epsilon()


def test_continuous_noise_needs_float_sampling_to_be_asked_for() -> None:
    s = optmech.Staircase.optimal(epsilon=1.0, sensitivity=1.0, cost="abs")
    with pytest.raises(ValueError, match="Mironov"):
        s.to_opendp()
    m = s.to_opendp(float_sampling=True)
    assert isinstance(m(1.0), float) and m.map(1.0) == 1.0


def test_bad_objects_are_refused() -> None:
    from optmech.interop.opendp import to_opendp

    with pytest.raises(TypeError, match="`obj` must be an optmech noise"):
        to_opendp(42)
    with pytest.raises(TypeError, match="`float_sampling`"):
        optmech.Geometric(epsilon=1.0).to_opendp(float_sampling="yes")  # type: ignore[arg-type]


def _same_measurement(a, b, distances) -> None:
    assert str(a.input_domain) == str(b.input_domain)
    assert str(a.output_measure) == str(b.output_measure)
    assert [a.map(d) for d in distances] == [b.map(d) for d in distances]


def test_the_method_and_the_function_give_the_same_measurement() -> None:
    """``noise.to_opendp()`` reaches ``optmech.interop.to_opendp`` through the registry of
    bridges (the families do not import interop): both build the same measurement."""
    from optmech._bridges import PROVIDERS, bridge
    from optmech.interop import to_opendp

    assert bridge("to_opendp") is to_opendp and PROVIDERS["to_opendp"] == to_opendp.__module__
    lattice = optmech.design_noise(optmech.PureDP(0.7), sensitivity=3, cost="abs", integer=True)
    approx = optmech.design_noise(
        optmech.ApproxDP(1.0, 1e-3), sensitivity=2, cost="abs", integer=True
    )
    for noise, distances in [
        (optmech.Geometric(epsilon=0.8, sensitivity=2), [0, 1, 2, 3, 5]),
        (lattice, [0, 3, 4, 7]),
        (approx, [0, 1, 2]),
    ]:
        _same_measurement(noise.to_opendp(), to_opendp(noise), distances)
    staircase = optmech.Staircase.optimal(epsilon=1.0, sensitivity=1.0, cost="abs")
    _same_measurement(
        staircase.to_opendp(float_sampling=True),
        to_opendp(staircase, float_sampling=True),
        [0.0, 0.5, 1.0, 2.5],
    )
    user = optmech.bayesian_mechanism(np.full(6, 1 / 6), "abs", 0.5)
    _same_measurement(user.to_opendp(), to_opendp(user), [0, 1, 2])


def test_noise_in_the_plane_is_refused() -> None:
    from optmech.interop import to_opendp

    with pytest.raises(TypeError, match="noise on the line"):
        to_opendp(optmech.StaircaseND(epsilon=1.0, gamma=0.5))
