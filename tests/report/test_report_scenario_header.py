"""A scenario's header on the report: its heading, and the rows that say how it was run
(the sample size of a run stopped by a precision among them), on the page and in
``report.md``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from simlab import api
from simlab.report.render import render_report
from simlab.tuning.precision import describe_record

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "scenarios/shattered-spirits-draft1/quickstart.yaml"


@pytest.fixture(scope="module")
def capped(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    """draft1's quickstart run to a precision 2,000 encounters cannot meet, and the
    folder of its report: the sample-size line, as the report says it, and the folder."""
    run = api.run_scenario(QUICKSTART, n=2000, precision=0.002)
    record = run.result.meta["precision"]
    assert record["cap_reached"] and not record["met"]
    out = tmp_path_factory.mktemp("capped")
    render_report([run], out, processes=1)
    return describe_record(record), out


def test_the_heading_keeps_hyphenated_names_whole(capped: tuple[str, Path]) -> None:
    """On a 390 px phone the heading ``draft1-quickstart (shattered-spirits-draft1)``
    broke as ``(shattered-`` over ``spirits-draft1)``: the scenario's id and its rules
    are words a browser does not break, as they are everywhere else on the page."""
    html = (capped[1] / "report.html").read_text(encoding="utf-8")
    heading = re.search(r"<h2 id=[^>]*>(.*?)</h2>", html, re.S)
    assert heading is not None
    assert '<span class="word">draft1-quickstart</span>' in heading.group(1), heading.group(1)
    assert '<span class="word">shattered-spirits-draft1</span>' in heading.group(1)


def test_report_md_gives_each_header_row_a_line(capped: tuple[str, Path]) -> None:
    """``report.md`` ran a scenario's rows into one paragraph joined by `` · ``: the
    sample size of a capped run (its rule, its widest figure and about how many
    encounters would meet it, itself with ``;`` and parentheses) sat between
    ``encounters: 2,000 · `` and `` · seed: 7``. Each row is now an item of a list, the
    sample size whole on its own line."""
    said, out = capped
    lines = (out / "report.md").read_text(encoding="utf-8").splitlines()
    sample = [line for line in lines if "sample size" in line]
    assert sample == [f"- **sample size**: {said.replace('|', chr(92) + '|')}"], sample
    assert "encounters would meet it, a half-width shrinking as 1/√n" in sample[0]
    assert "- **encounters**: 2,000" in lines and "- **seed**: 7" in lines
    assert not any(" · seed: " in line for line in lines)
