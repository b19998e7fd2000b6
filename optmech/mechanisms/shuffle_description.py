"""What the shuffle-model bounds read from a local randomizer, without its matrix.

`optmech.shuffle_epsilon` bounds the central privacy of n shuffled reports from a few numbers
of the randomizer (THEORY §9): its local ε₀, the clone probability of the blanket decomposition
relative to a pair of inputs, the blanket mass γ, the variation-ratio parameters (p, β, q) of
Wang et al. (PVLDB 2024), and, for the lower bound, the laws of a few binary and ternary
post-processings of one report. A matrix gives them by brute force; a frequency oracle
(`optmech.mechanisms.frequency_oracles`) gives them in closed form, so the bounds run at
domain sizes where no matrix could be built.

Examples
--------
>>> d = ShuffleDescription(local_epsilon=1.0, clone_probability=0.5, blanket_mass=0.5,
...                        variation_ratio=(2.7, 0.4, 2.7), outputs=4)
>>> d.binary is None, d.count_laws
(True, ())
"""

from __future__ import annotations

from dataclasses import dataclass

from optmech._floats import FloatArray

__all__ = ["ShuffleDescription"]


@dataclass(frozen=True)
class ShuffleDescription:
    """The quantities of a local randomizer the shuffle bounds use.

    Attributes
    ----------
    local_epsilon : float
        ε₀ over every pair of inputs, rounded up.
    clone_probability : float
        The largest $p$ with $R(y|x) ≥ \\frac{p}{2}(R(y|x^0) + R(y|x^1))$ for every output y,
        every input x and every pair $x^0 ≠ x^1$ (the ``"blanket"`` method of
        `optmech.shuffle_epsilon`), rounded down.
    blanket_mass : float
        $γ = Σ_y \\min_x R(y|x)$ (Balle, Bell, Gascón & Nissim 2019), rounded down.
    variation_ratio : tuple of float
        $(p, β, q)$ of Wang et al. (PVLDB 2024): the largest ratio $R(y|x^0)/R(y|x^1)$, the
        largest total variation between two rows, the largest ratio of a row of the pair to any
        row; rounded up.
    outputs : int
        Number of outputs of positive probability.
    binary : tuple of float, optional
        ``(hi, lo)``, the largest and smallest probability over the inputs of the second of
        exactly two outputs (the ``"exact"`` method); None with more outputs.
    count_laws : tuple of (lo, hi)
        Output sets whose report count is a binary post-processing: the smallest and largest
        probability of the set over the inputs (lower bound).
    pair_laws : tuple of (first, second, others)
        Laws over four output sets (S0, S1, S2, the rest) of user 1's two inputs and of the
        input of every other user (lower bound): S0 and S1 where the pair's rows differ, S2
        the other outputs likelier under the others' input than under the pair (empty when the
        others sit at an input of the pair). Three sets are read with S2 empty.
    matrix : ndarray or None
        The matrix, when it was given (None for a closed form).
    variation_decomposition : tuple of float or None
        ``(α, r, s, residue)`` of the sound variation-ratio bound
        (`optmech.certify.shuffle_variation.VariationRatio`): user 1's clone weight, the
        smallest probability that another user draws $Q^0$ (and $Q^1$), the smallest that it
        draws user 1's neutral law, and the mass left out of the split; α and the residue
        rounded up, r and s down. None where no closed form is known (the matrix gives it).

    Examples
    --------
    >>> import optmech
    >>> d = optmech.OLH(1 << 20, 1.0).shuffle_description()
    >>> d.outputs > 1 << 16, d.matrix is None, round(d.clone_probability, 6)
    (True, True, 0.367879)
    """

    local_epsilon: float
    clone_probability: float
    blanket_mass: float
    variation_ratio: tuple[float, float, float]
    outputs: int
    binary: tuple[float, float] | None = None
    count_laws: tuple[tuple[float, float], ...] = ()
    pair_laws: tuple[tuple[FloatArray, FloatArray, FloatArray], ...] = ()
    matrix: FloatArray | None = None
    variation_decomposition: tuple[float, float, float, float] | None = None
