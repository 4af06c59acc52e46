"""The report page as a designer reads it: a side no one attacks has no time-to-down
picture (a flat line at 0 on an axis of 0 to 2 rounds) but a line that says why; the
time-to-down pictures are named for what they show (a cumulative incidence, not a
survival curve); and no name or command on the page breaks at a hyphen on a phone."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from simlab import api
from simlab.analysis.drift import compare
from simlab.report.render import render_report, whole_words

# Slow tier (make test-slow): runs and renders drift and report pages.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
GLITTERS_DUEL = ROOT / "scenarios/benchmarks/glitters-d20-duel.yaml"
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"
DRAFT_FIGHT = ROOT / "scenarios/benchmarks/shattered-spirits-draft1-fight.yaml"
ZONES_FIGHT = ROOT / "scenarios/benchmarks/zones-3d6-fight.yaml"
NOTE = "Not drawn, Attacker: never down, as no one attacks it."


def test_a_side_no_one_attacks_has_no_time_to_down_picture_but_a_note(tmp_path: Path) -> None:
    run = api.run_scenario(GLITTERS_DUEL, n=2000, seed=3)
    render_report([run], tmp_path)
    pngs = sorted(p.name for p in (tmp_path / "png").glob("*.png"))
    ours = [name for name in pngs if "time-to-down" in name]
    assert ours == ["glitters-d20-glitters-d20-duel-time-to-down-defender.png"], pngs
    assert not [name for name in pngs if "survival" in name], pngs
    html = (tmp_path / "report.html").read_text()
    md = (tmp_path / "report.md").read_text()
    assert NOTE in html and NOTE in md
    assert "time-to-down · attacker" not in html and "time-to-down · defender" in html
    assert "png/glitters-d20-glitters-d20-duel-time-to-down-defender.png" in md


def _broken_at_hyphens(html: str) -> list[str]:
    """The words of ``html``'s text a browser may break at a hyphen: those with one
    inside them (``zones-3d6``) or at their start (``--baseline``) that no
    ``span.word`` keeps whole."""
    text = re.sub(r'<span class="word">[^<]*</span>', " ", html)
    text = re.sub(r"<[^>]*>", " ", text)  # tags and their attributes are not text
    return re.findall(r"\S*\w-\w\S*|(?<!\S)-+\w\S*", text)


@pytest.fixture(scope="module")
def drift_page(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A report of the quickstart, its stone-strike changed, against a baseline that
    also holds two scenarios not run, whose names and rules ids have hyphens."""
    changed = api.load(QUICKSTART).with_({"stone-strike.profile[9]": 8})
    current = [api.run_scenario(changed, n=5000, seed=3)]
    baseline = [api.run_scenario(path, n=5000, seed=3)
                for path in (QUICKSTART, DRAFT_FIGHT, ZONES_FIGHT)]  # fmt: skip
    out = tmp_path_factory.mktemp("drift")
    render_report(current, out, drift=compare(current, baseline),
                  baseline="reports/baseline/results.json")  # fmt: skip
    return (out / "report.html").read_text()


def test_no_name_on_the_drift_page_breaks_at_a_hyphen(drift_page: str) -> None:
    (not_compared,) = re.findall(r'<p class="note">(Not compared:.*?)</p>', drift_page, re.S)
    assert "zones-3d6-fight" in not_compared  # the case this is about
    assert _broken_at_hyphens(not_compared) == [], not_compared
    # the advice to adopt the run (made with overrides here: "This run was made with …")
    (adopt,) = [note for note in re.findall(r'<p class="note">(.*?)</p>', drift_page, re.S)
                if "baseline update" in note]  # fmt: skip
    assert '<span class="word">--baseline</span>' in adopt
    assert _broken_at_hyphens(adopt) == [], adopt
    # nor any name or option in the page's other lines and tables (words such as
    # Holm-adjusted may break)
    names = ("zones-3d6", "shattered-spirits", "stone-strike", "--")
    lines = re.findall(r"<(p|li|td|th)\b[^>]*>(.*?)</\1>", drift_page, re.S)
    loose = [w for _, line in lines for w in _broken_at_hyphens(line)]
    assert [w for w in loose if any(n in w for n in names)] == [], loose


def test_a_long_target_may_break_after_its_colon_slash_and_equals_sign() -> None:
    """A tune page's target was one unbreakable string as wide as its column on a phone."""
    html = str(whole_words("mean_damage:strike/Defender=4.5"))
    assert html.replace('<span class="word">', "").replace("</span>", "") == (
        "mean_damage:<wbr>strike/<wbr>Defender=<wbr>4.5"
    )
    assert str(whole_words("Kaito: 6 · Mira: not reached")) == "Kaito: 6 · Mira: not reached"
