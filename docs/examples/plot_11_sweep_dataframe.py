r"""
# A sweep, read back as a DataFrame

[`optmech.sweep`](../../howto/sweeps.md) runs one task over a grid of parameters and stores a
row per task in an SQLite file; run it again and finished tasks are skipped. Here the built-in
`design-noise` task designs certified ε-DP noise for two costs across ε, and the store is read
back with pandas (`pip install 'optmech[pandas]'`) to plot each design against the best
*symmetric* noise, the staircase (Geng & Viswanath 2016): an asymmetric cost pays for
asymmetric noise. How-to: [run a sweep](../../howto/sweeps.md).
"""

import tempfile
from pathlib import Path

import matplotlib.pyplot as plt

import optmech
from optmech.costs import Asymmetric
from optmech.sweep import ResultStore, SweepSpec, run_sweep

epsilons = [0.5, 1.0, 2.0, 4.0]
spec = SweepSpec(
    task="design-noise",
    grid={
        "privacy": [f"eps={eps:g}" for eps in epsilons],
        "cost": ["abs", "asym:3,1"],
    },
    fixed={"sensitivity": 1.0, "resolution": 20, "periods": 8},
    name="cost-vs-epsilon",
)
with tempfile.TemporaryDirectory() as folder:
    store = Path(folder) / "sweep.sqlite"
    summary = run_sweep(spec, store=store, workers=1)  # 1: in this process
    # Run again: every task is found in the store, none is computed.
    again = run_sweep(spec, store=store, workers=1)
    with ResultStore(store) as db:
        frame = db.to_dataframe()
print(f"first run: {summary.completed} tasks computed, {summary.failed} failed")
print(
    f"second run: {again.skipped} tasks found in the store, "
    f"{again.completed} computed"
)

# %%
# One row per task, one column per parameter and per result field.

frame["epsilon"] = frame["privacy"].str.removeprefix("eps=").astype(float)
table = frame.pivot(index="epsilon", columns="cost", values="value")
print(
    frame[
        [
            "privacy",
            "cost",
            "value",
            "lower_bound",
            "certified_epsilon",
            "seconds",
        ]
    ]
)

symmetric = [
    optmech.Staircase.optimal(
        epsilon=eps, sensitivity=1.0, cost="abs"
    ).expected_cost(Asymmetric(over=3, under=1))
    for eps in epsilons
]
fig, ax = plt.subplots(figsize=(7, 3.4))
ax.loglog(table.index, table["abs"], "o-", label="|e|: LP design")
ax.loglog(table.index, table["asym:3,1"], "s-", label="3e⁺ + e⁻: LP design")
ax.loglog(
    epsilons, symmetric, "s--", mfc="none", label="3e⁺ + e⁻: the |e| staircase"
)
ax.set(
    xlabel="ε",
    ylabel="expected cost (Δ = 1)",
    title="A sweep over ε and the cost",
)
ax.legend()
fig.tight_layout()
plt.show()
