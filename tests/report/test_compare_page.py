"""The comparison page marks a figure CHANGED as the report and sweep pages mark theirs,
and says what its columns and marks mean in paragraphs, not one block."""

from __future__ import annotations

import re
from pathlib import Path

from simlab import api
from simlab.report import tuning
from tests.report.report_html import words_unwrapped

ROOT = Path(__file__).resolve().parents[2]
DUEL = ROOT / "scenarios/benchmarks/ss-duel.yaml"


def test_changed_is_marked_and_the_note_is_in_paragraphs(tmp_path: Path) -> None:
    """``CHANGED`` was plain text where the report's DRIFT and FAIL are red, and the note
    under the heading one paragraph of some 120 words."""
    comparison = api.compare(DUEL, changes={"Defender.guard": 2}, n=2000, seed=1)
    tuning.render_compare(comparison, tmp_path)
    html = (tmp_path / "compare.html").read_text(encoding="utf-8")
    statuses = re.findall(r"<tr><td[^>]*>(CHANGED|changed|same)</td>", html)
    assert "CHANGED" in statuses, statuses
    assert html.count('<td class="bad">CHANGED</td>') == statuses.count("CHANGED")
    assert '<td class="bad">same' not in html and '<td class="bad">changed' not in html
    notes = re.findall(r'<p class="note">(.*?)</p>', html.split("<h2>Figures</h2>")[1], re.S)
    assert len(notes) >= 4, notes
    assert notes[0].startswith("diff = B − A.") and max(map(len, notes)) < 400, notes
    assert any(n.startswith("Figures whose paired interval excludes 0") for n in notes)
    markdown = (tmp_path / "compare.md").read_text(encoding="utf-8")
    assert "\n\nFigures whose paired interval excludes 0" in markdown


def test_a_page_of_two_rule_systems_names_both_and_says_what_pairing_did(tmp_path: Path) -> None:
    """The terminal and the repr said that A and B follow different rules; the page's
    header named A's rules alone and its note said nothing of it."""
    drafts = [ROOT / "scenarios" / rules / "duel-both-drafts.yaml"
              for rules in ("shattered-spirits", "shattered-spirits-draft1")]  # fmt: skip
    comparison = api.compare(*drafts, n=300, seed=1)
    tuning.render_compare(comparison, tmp_path)
    for page in ("compare.html", "compare.md"):
        text = words_unwrapped((tmp_path / page).read_text(encoding="utf-8"))
        assert "rules shattered-spirits (A), shattered-spirits-draft1 (B)" in text, page
        assert comparison.rules_note().split(":")[0] in text, page
    same = api.compare(DUEL, changes={"Defender.guard": 2}, n=300, seed=1)
    tuning.render_compare(same, tmp_path / "same")
    text = words_unwrapped((tmp_path / "same" / "compare.html").read_text(encoding="utf-8"))
    assert "rules shattered-spirits ·" in text and "different rules" not in text


def test_a_page_of_two_rule_systems_says_what_pairing_did_once(tmp_path: Path) -> None:
    """The page of two drafts compared said "A and B follow different rules …" twice
    under its heading: first among the notes, again with the figures only one has."""
    drafts = [ROOT / "scenarios" / rules / "quickstart.yaml"
              for rules in ("shattered-spirits", "shattered-spirits-draft1")]  # fmt: skip
    comparison = api.compare(*drafts, n=300, seed=1)
    tuning.render_compare(comparison, tmp_path)
    said = comparison.rules_note()
    for page in ("compare.html", "compare.md"):
        text = words_unwrapped((tmp_path / page).read_text(encoding="utf-8"))
        assert text.count("A and B follow different rules") == 1, page
        assert said in text, page
