"""The LP engine: the parts every LP family shares, one concept per module.

Every LP result optmech returns goes the same way — **build → solve → certify → repair →
bound → record** — and these modules are the shared steps, so that the additive designers
(1-D, beyond (ε, δ), 2-D), the user LPs and the query-dependent LP each write only what is
their own (their rows, their objective, their certificate):

`certified`
    The loop itself: an LP family's hooks (build, read, repair, certify, bound, known
    candidates, further rounds) and `certified_solve`, which solves robustly, competes,
    refines, cross-checks and records; the only door to the solver outside this package.
`rows`, `readout`
    A row-block LP: named blocks of rows, the cvxpy problem of one solver attempt and reading
    its point and multipliers back in the LP's own units.
`solving`, `run`
    Solving a row-block LP through `optmech.lp.solve.solve_robust`;
    the settings a design passes down (`DesignRun`).
`interval`
    The certified interval ``[lower_bound, value]`` and the one test of its width.
`crosscheck`
    The same LP solved by the other main solver, its attempts labelled.
`mixing`
    The repair loop: the least weight of a private reference that makes a mixture certify.
`acceptance`
    When a certified ε meets a requested one (the certificate's own rounding).
`rounding`
    Cell widths and tail ratios rounded so the rows are exact.
`record`
    What a matrix LP's engine hands back to its public function.
`report`
    Logging (the logger ``"optmech"``) and progress bars of the stages.

The engine imports nothing from the LP families; they import from it.
"""
