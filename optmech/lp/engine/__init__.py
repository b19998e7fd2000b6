"""The LP engine: the parts every LP family shares, one concept per module.

Every LP result optmech returns goes the same way — **build → solve → certify → repair →
bound → record** — and these modules are the shared steps, so that the additive designers
(1-D, beyond (ε, δ), 2-D), the user LPs and the query-dependent LP each write only what is
their own (their rows, their objective, their certificate):

[`rows`][optmech.lp.engine.rows], [`readout`][optmech.lp.engine.readout]
    A row-block LP: named blocks of rows, the cvxpy problem of one solver attempt and reading
    its point and multipliers back in the LP's own units.
[`solving`][optmech.lp.engine.solving], [`run`][optmech.lp.engine.run]
    Solving a row-block LP through [`optmech.lp.solve.solve_robust`][optmech.lp.solve.solve_robust];
    the settings a design passes down ([`DesignRun`][optmech.lp.engine.run.DesignRun]).
[`interval`][optmech.lp.engine.interval]
    The certified interval ``[lower_bound, value]`` and the one test of its width.
[`crosscheck`][optmech.lp.engine.crosscheck]
    The same LP solved by the other main solver, its attempts labelled.
[`mixing`][optmech.lp.engine.mixing]
    The repair loop: the least weight of a private reference that makes a mixture certify.
[`acceptance`][optmech.lp.engine.acceptance]
    When a certified ε meets a requested one (the certificate's own rounding).
[`rounding`][optmech.lp.engine.rounding]
    Cell widths and tail ratios rounded so the rows are exact.
[`record`][optmech.lp.engine.record]
    Assembling a design's [`Provenance`][optmech.provenance.Provenance].
[`report`][optmech.lp.engine.report]
    Logging (the logger ``"optmech"``) and progress bars of the stages.

The engine imports nothing from the LP families; they import from it.
"""
