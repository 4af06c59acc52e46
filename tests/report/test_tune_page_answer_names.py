"""The tune page's answer begins with the field tuned, spelled as it was given: a
Technique's or a parameter's name is lower case, and a capital would name another."""

from __future__ import annotations

from pathlib import Path

import pytest

from simlab import api
from simlab.report import tuning
from tests.report.report_html import words_unwrapped

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "scenarios/shattered-spirits-draft1/quickstart.yaml"


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The page of a tune the exact engine answers at every value (nothing simulated)."""
    found = api.tune(QUICKSTART, "quick-jab.modifier=-4:4", "hit_rate:quick-jab=0.8")
    assert {e.method for e in found.evaluations} == {"exact"}
    out = tmp_path_factory.mktemp("tune")
    tuning.render_tune(found, out)
    return out


def test_the_answer_keeps_the_field_as_spelled_on_the_page(written: Path) -> None:
    """draft1's quickstart tuned on ``quick-jab.modifier``: the page's answer read
    ``Quick-jab.modifier=-1 gives …``, a Technique no scenario names, where the terminal
    says ``quick-jab.modifier=-1 gives …``."""
    html = words_unwrapped((written / "tune.html").read_text(encoding="utf-8"))
    markdown = (written / "tune.md").read_text(encoding="utf-8")
    for page in (html, markdown):
        assert "quick-jab.modifier=-1 gives hit_rate:quick-jab = 0.8333" in page
        assert "Quick-jab" not in page


def test_the_other_sentences_still_begin_with_a_capital(written: Path) -> None:
    """Each sentence but the field's begins with a capital, as the terminal's do."""
    markdown = (written / "tune.md").read_text(encoding="utf-8")
    assert "\n\nConsistent with the target: no value" in markdown
    assert "\n\nHow: tuned quick-jab.modifier over -4..4" in markdown
