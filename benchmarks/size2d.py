"""Size of the 2-D additive-noise LP against its estimate (``AdditiveSpec2D.size``).

``python -m benchmarks.size2d [--norms l1 l2 linf] [--resolutions 4 8 12 16 20] [--periods 4]
[--epsilon 1] [--timeout S]``: per ball of shifts and resolution (ℓ1 cost, Δ = 1), one design
``optmech.design_noise(PureDP(ε), sensitivity=1, cost="l1", dimension=2, ...)`` in a fresh
process, one case at a time. Each row holds the built LP's variables, rows and nonzeros
(``AdditiveLP2D.counts``, the LP rebuilt after the design so that it does not add to the peak),
the estimate (``size()``), and the design's peak resident memory above the process's after
importing optmech and cvxpy (``VmHWM``, ``benchmarks._process``). The constants of
``optmech.lp.additive2d.spec`` were fitted to these rows.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from benchmarks._common import run_case

MODULE = "benchmarks.size2d"


def size_case(norm: str, m: int, k: int, epsilon: float = 1.0) -> dict[str, Any]:
    """One design, its LP's counts, the estimate and the peak above imports (child process)."""
    import cvxpy  # noqa: F401  (imported before the baseline)

    import optmech
    from benchmarks._process import proc_peak_mb
    from optmech.lp.additive2d import AdditiveSpec2D, build_additive_lp_2d

    base = proc_peak_mb() or 0.0
    t0 = time.perf_counter()
    optmech.design_noise(
        optmech.PureDP(epsilon),
        sensitivity=1.0,
        cost="l1",
        dimension=2,
        sensitivity_norm=norm,
        resolution=m,
        periods=k,
    )
    seconds = time.perf_counter() - t0
    peak = (proc_peak_mb() or 0.0) - base
    spec = AdditiveSpec2D(optmech.PureDP(epsilon), 1.0, "l1", norm, resolution=m, periods=k)
    built = build_additive_lp_2d(spec).counts()
    predicted = spec.size()
    return {
        "seconds": seconds,
        "base_mb": base,
        "design_peak_mb": peak,
        **{f"built_{key}": val for key, val in built.items()},
        **{f"predicted_{key}": val for key, val in predicted.items()},
        "predicted_mb": predicted["bytes"] / 1e6,
    }


def main(argv: list[str] | None = None) -> None:
    """Run the cases one after another and print one JSON row each."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.size2d")
    parser.add_argument("--norms", nargs="+", default=["linf", "l2", "l1"])
    parser.add_argument("--resolutions", nargs="+", type=int, default=[4, 8, 12, 16, 20])
    parser.add_argument("--periods", type=int, default=4)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--timeout", type=float, default=600.0)
    args = parser.parse_args(argv)
    for m in args.resolutions:
        for norm in args.norms:
            out = run_case(
                MODULE, "size_case", args.timeout, norm=norm, m=m, k=args.periods,
                epsilon=args.epsilon,
            )  # fmt: skip
            row = {"norm": norm, "m": m, "periods": args.periods, "epsilon": args.epsilon}
            print(json.dumps({**row, **out}), flush=True)


if __name__ == "__main__":
    main()
