"""optmech's benchmarks: ``python -m benchmarks [--quick] [--out DIR] [--only SECTION ...]``.

Four sections, each a module with ``run(quick, timeout) -> list[dict]`` (rows of the report):

``grs``        GRS user LP (uniform prior, |e| loss; Ghosh, Roughgarden & Sundararajan 2012): phases
of the pipeline per
               solver, pipeline / the same solver on hand-built sparse matrices, pipeline / qif.
``additive``   Additive ε-DP noise LP (Geng & Viswanath 2016; exact discretisation, see the theory
pages): phases per solver, pipeline / direct
               solver, and the scaling exponent of solver time against the number of cells.
``samplers``   ``Staircase``, ``DiscreteStaircase``, ``UniformAtom`` sampling throughput against
               numpy's Laplace / geometric samplers and diffprivlib's Staircase.
``closedform`` The closed forms (staircase, geometric + Bayes remap) against the LP that
               reaches the same answer: time saved, value agreement.

Every case runs in a fresh subprocess with a time limit (reported as ``"timeout"``, never a hang)
and reports its own peak RSS. Every comparison is a ratio of two timings taken in the same run,
so it holds on a noisy machine better than the raw seconds; the machine load (``uptime``) is
recorded with every row. See ``docs/performance.md``.
"""
