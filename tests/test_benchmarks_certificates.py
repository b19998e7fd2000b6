"""The dual-certificate benchmark: a case reports its time, its CPU time and the certificate.

Independent truth: the value of a case on the uniform prior with ``|e|`` is the GRS optimum
(geometric mechanism with the Bayes remap), recomputed here by ``_reference.g_plus_bayes_remap``.
"""

from __future__ import annotations

import numpy as np
from _reference import g_plus_bayes_remap

from benchmarks import certificates


def test_a_case_reports_time_and_a_certified_interval_around_the_optimum() -> None:
    row = certificates.certificate_case(30, "uniform", "abs", 0.5)
    assert row["certified"] and row["total"] >= 0 and row["cpu"] >= 0
    i = np.arange(31)
    optimum = g_plus_bayes_remap(np.full(31, 1 / 31), np.abs(i[:, None] - i[None, :]), 0.5)
    assert row["lower_bound"] <= optimum * (1 + 1e-12) and row["value"] >= optimum * (1 - 1e-12)
    text = certificates.line(
        {"n": 30, "prior": "uniform", "loss": "abs", "epsilon": 0.5, "peak_rss_mb": 1.0}
        | {"load": 0.0, **row}
    )
    assert "certified" in text and "n=30" in text
