r"""
# The ε-LDP randomizer that keeps the most information

Kairouz, Oh & Viswanath (2016): a utility that is a sum of sublinear functions of the output
columns, such as the mutual information $I(X; Y)$ between an input and its release, is
maximised over ε-locally-private randomizers by a *staircase* mechanism, whose columns take
only the values $\theta$ and $e^{\varepsilon}\theta$;
[`extremal_mechanism`][optmech.extremal_mechanism] solves the resulting LP over the $2^k$
patterns and certifies an interval for the optimum. The same paper shows two simple
mechanisms are optimal at the extremes: the binary mechanism (two outputs) for small ε,
randomized response (Warner 1965) for large ε. Between the two, the LP's optimum beats both.
Theory: [the local model](../../theory/local.md), its last section.
"""

import itertools

import matplotlib.pyplot as plt
import numpy as np
import numpy.typing as npt

import optmech
from optmech.utilities import MutualInformation

prior = np.array([0.05, 0.1, 0.15, 0.2, 0.22, 0.28])
k = prior.size
utility = MutualInformation(prior)


def randomized_response(eps: float) -> npt.NDArray[np.float64]:
    """k-ary randomized response: the truth with probability
    e^ε / (e^ε + k − 1)."""
    ratio = float(np.exp(eps))
    return (ratio * np.eye(k) + (1 - np.eye(k))) / (ratio + k - 1)


def best_binary(eps: float) -> float:
    """The best binary mechanism: output 0 is e^ε times likelier on a set T
    of inputs."""
    best = 0.0
    for size in range(1, k):
        for members in itertools.combinations(range(k), size):
            high = np.isin(np.arange(k), members)
            first = np.where(high, np.exp(eps), 1.0) / (1 + np.exp(eps))
            best = max(best, utility.value(np.column_stack([first, 1 - first])))
    return best


epsilons = np.geomspace(0.1, 10.0, 15)
optimum: list[float] = []
upper: list[float] = []
binary: list[float] = []
rr: list[float] = []
for eps in epsilons:
    result = optmech.extremal_mechanism(utility, float(eps))
    # The optimum lies in [value, upper_bound]: the utility of the returned
    # matrix, rounded down, and a weak-duality bound no randomizer beats.
    optimum.append(result.value)
    upper.append(result.upper_bound)
    binary.append(best_binary(float(eps)))
    rr.append(utility.value(randomized_response(float(eps))))

print(
    f"{'ε':>6} {'optimum (nats)':>15} {'binary / opt':>13} "
    f"{'RR / opt':>9} {'outputs':>8}"
)
for eps, v, b, r in zip(
    epsilons[::2], optimum[::2], binary[::2], rr[::2], strict=True
):
    used = optmech.extremal_mechanism(utility, float(eps)).mechanism.shape[1]
    print(f"{eps:6.2f} {v:15.6f} {b / v:13.4f} {r / v:9.4f} {used:8d}")

fig, ax = plt.subplots(figsize=(7, 3.4))
ax.semilogx(
    epsilons,
    np.array(binary) / np.array(upper),
    "s--",
    label="binary mechanism",
)
ax.semilogx(
    epsilons, np.array(rr) / np.array(upper), "^--", label="randomized response"
)
ax.semilogx(
    epsilons,
    np.array(optimum) / np.array(upper),
    "o-",
    label="staircase-pattern LP",
)
ax.set(
    xlabel="ε",
    ylabel="I(X; Y) / certified optimum",
    title="Mutual information of ε-LDP randomizers (6 inputs)",
    ylim=(0.3, 1.03),
)
ax.legend()
fig.tight_layout()
plt.show()
