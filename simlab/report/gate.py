"""``drift.json``: the drift gate's verdict for a machine (a CI system, a dashboard).

``simlab report --baseline`` writes it beside ``report.md``, in the same output unit
(:func:`simlab.report.files.output_unit`, stamped with the run identity as every file
is). It says what the terminal and ``report.md`` say, as data::

    {"run": {…}, "format": 1, "verdict": "drift", "exit_code": 1,
     "summary": "11 of 39 figures drifted from the baseline …",
     "baseline": "reports/baseline/results.json",
     "alpha": 0.01, "adjustment": "holm",
     "rule": "a figure drifts when its Holm-adjusted p is below alpha and …",
     "counts": {"compared": 39, "drifted": 11, "changed_within_tolerance": 1,
                "borderline": 2, "not_tested": 0},
     "sample_sizes_differ": true,
     "sample_sizes": [{"scenario", "rules", "baseline_encounters", "encounters"}],
     "simlab_versions_differ": false, "seeds_differ": false,
     "tolerances_differ": false, "passed_by_tolerance": 0,
     "provenance": [{"scenario", "rules", "baseline_seed", "seed",
                     "baseline_simlab_version", "simlab_version",
                     "baseline_tolerance", "tolerance"}],
     "not_compared": [{"scenario", "rules", "reason"}],
     "figures": [{"scenario", "rules", "figure", "figure_name", "subject", "kind", "test",
                  "baseline", "current", "change", "statistic", "statistic_name",
                  "p_value", "p_holm", "tolerance", "threshold", "beyond_tolerance", "significant",
                  "drifted", "borderline", "status"}],
     "notes": ["…"]}

README ("The drift gate") documents every field.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from simlab.analysis.drift import DriftReport, figure_name, key, threshold
from simlab.report.files import write_json

__all__ = ["DRIFT_JSON", "EXIT_DRIFT", "FORMAT", "drift_document", "write_drift_json"]

DRIFT_JSON = "drift.json"
#: The version of drift.json's fields; raised when a field changes meaning.
FORMAT = 1
#: The exit code of ``simlab report`` when a figure drifted (the CLI's check failure): the
#: command exits with this constant, so drift.json cannot say another code.
EXIT_DRIFT = 1
RULE = ("a figure drifts when its Holm-adjusted p is below alpha and its change reaches "
        "the scenario's tolerance for its kind")  # fmt: skip
#: What each test's ``statistic`` is: a rate's exact test keeps the z, for scale.
STATISTIC_NAME = {"z": "z", "exact": "z", "chi2": "chi2", "t": "t", "none": None}
NO_BASELINE = "no baseline yet"
NOT_RUN = "in the baseline but not run"


def _number(value: Any) -> float | None:
    """A figure as JSON holds it: None for NaN or an infinite change (a distribution
    has no baseline or current value; a median one run does not reach)."""
    value = float(value)
    return value if math.isfinite(value) else None


def _figure(row: Any, borderline: bool) -> dict[str, Any]:
    """One compared figure of the drift table, with its status as the pages word it: its
    id (``damage_pmf``), which tools read, and beside it its name in words (``damage
    distribution``), as the terminal and the pages give it."""
    from simlab.report.render import drift_status

    return {
        "scenario": row.scenario, "rules": row.rules, "figure": row.figure,
        "figure_name": figure_name(row.figure), "subject": row.subject, "kind": row.kind,
        "test": row.test,
        "baseline": _number(row.baseline), "current": _number(row.current),
        "change": _number(row.change), "statistic": _number(row.statistic),
        "statistic_name": STATISTIC_NAME.get(row.test), "p_value": _number(row.p_value),
        "p_holm": _number(row.p_holm), "tolerance": float(row.tolerance),
        "threshold": _number(threshold(row.kind, row.tolerance, row.baseline)),
        "beyond_tolerance": bool(row.beyond_tolerance), "significant": bool(row.significant),
        "drifted": bool(row.drifted), "borderline": borderline, "status": drift_status(row),
    }  # fmt: skip


def _not_compared(runs: Sequence[Any], baseline_runs: Sequence[Any]) -> list[dict[str, str]]:
    """The scenarios of only one of the two runs, with why they were not compared."""
    ran = {key(r) for r in runs}
    saved = {key(r) for r in baseline_runs}
    new = [(r, NO_BASELINE) for r in runs if key(r) not in saved]
    gone = [(r, NOT_RUN) for r in baseline_runs if key(r) not in ran]
    return [{"scenario": r.scenario, "rules": r.rules, "reason": why} for r, why in new + gone]


def drift_document(drift: DriftReport, baseline: str, runs: Sequence[Any],
                   baseline_runs: Sequence[Any]) -> dict[str, Any]:  # fmt: skip
    """The contents of ``drift.json`` (see the module docstring and README).

    Parameters
    ----------
    drift : DriftReport
        The comparison (:func:`simlab.analysis.drift.compare`).
    baseline : str
        The baseline's path, as the report names it.
    runs, baseline_runs : sequence of ScenarioRun
        This run's and the baseline's scenarios, for those not compared.

    Returns
    -------
    dict
        The document, without its ``run`` field (the output unit stamps it).
    """
    from simlab.report.render import drift_verdict

    table = drift.table
    borderline = drift.borderline
    tested = table.test != "none"
    return {
        "format": FORMAT,
        "verdict": "ok" if drift.ok else "drift",
        "exit_code": 0 if drift.ok else EXIT_DRIFT,
        "summary": drift_verdict(drift, baseline),
        "baseline": baseline,
        "alpha": drift.alpha,
        "adjustment": "holm",
        "rule": RULE,
        "counts": {
            "compared": len(table),
            "drifted": int(table.drifted.sum()),
            "changed_within_tolerance": int((table.significant & ~table.drifted).sum()),
            "borderline": int(borderline.sum()),
            "not_tested": int((~tested).sum()),
        },
        "sample_sizes_differ": bool(drift.sizes_differ()),
        "sample_sizes": [
            {
                "scenario": s.scenario,
                "rules": s.rules,
                "baseline_encounters": s.baseline,
                "encounters": s.current,
            }
            for s in drift.sizes
        ],
        "simlab_versions_differ": bool(drift.versions_differ()),
        "seeds_differ": bool(drift.seeds_differ()),
        "tolerances_differ": bool(drift.tolerances_differ()),
        "passed_by_tolerance": len(drift.passed_by_tolerance()),
        "provenance": [
            {
                "scenario": p.scenario,
                "rules": p.rules,
                "baseline_seed": p.baseline_seed,
                "seed": p.seed,
                "baseline_simlab_version": p.baseline_version or None,
                "simlab_version": p.version or None,
                "baseline_tolerance": p.baseline_tolerance,
                "tolerance": p.tolerance,
            }
            for p in drift.provenance
        ],
        "not_compared": _not_compared(runs, baseline_runs),
        "figures": [
            _figure(row, bool(b)) for row, b in zip(table.itertuples(), borderline, strict=True)
        ],
        "notes": list(drift.notes),
    }


def write_drift_json(folder: Path, drift: DriftReport, baseline: str, runs: Sequence[Any],
                     baseline_runs: Sequence[Any]) -> Path:  # fmt: skip
    """Write ``drift.json`` into ``folder`` (a report's staging folder), atomically.

    Parameters
    ----------
    folder : Path
        Where ``report.md`` goes.
    drift, baseline, runs, baseline_runs
        As :func:`drift_document` takes them.

    Returns
    -------
    Path
        The file written.
    """
    return write_json(folder / DRIFT_JSON, drift_document(drift, baseline, runs, baseline_runs))
