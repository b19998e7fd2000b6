"""optmech's benchmarks: ``python -m benchmarks [--quick] [--out DIR] [--only SECTION ...]
[--repeat N] [--page docs/performance.md]``.

Seven sections, each a module with ``run(quick, timeout) -> list[dict]`` (rows of the report):

``grs``        GRS user LP (uniform prior, |e| loss; Ghosh, Roughgarden & Sundararajan 2012):
               phases of the pipeline per solver, pipeline / the same solver on hand-built
               sparse matrices, pipeline / qif.
``additive``   Additive ε-DP noise LP (Geng & Viswanath 2016; the exact discretisation): phases
               per solver, pipeline / direct solver, and the scaling exponent of solver time
               against the number of cells.
``crossover``  HiGHS against Clarabel on ``design_noise`` by cost, ε, resolution and periods:
               the measurement behind ``SOLVER_POLICY["additive"]``.
``startup``    Whole processes of small problems: the closed-form command, and per LP kind the
               split of imports, build, solve and certify, against the same matrices solved
               through ``highspy`` without cvxpy, and qif.
``samplers``   ``Staircase``, ``DiscreteStaircase``, ``UniformAtom`` sampling throughput against
               numpy's samplers and diffprivlib's Staircase; the exact samplers with the default
               and a seeded bit source.
``closedform`` The closed forms (staircase, geometric + Bayes remap) against the LP that
               reaches the same answer: time saved, value agreement.
``additive2d`` The 2-D additive LP: the target case and a resolution ladder per ball.

Every case runs in a fresh subprocess with a time limit (reported as ``"timeout"``, never a
hang), ``--repeat`` times (default 3), alternated with the case it is compared with, and
reports min and median; its peak resident memory is its own (``benchmarks._process``: never
the driver's, which ``ru_maxrss`` would inherit). The machine load is recorded with every row.
``--page`` writes ``docs/performance.md`` from the run (``benchmarks.page``);
``python -m benchmarks.compare`` compares the reports of two checkouts case by case.
"""
