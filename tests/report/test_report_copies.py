"""Reports of fights with copies, drift against a changed profile, and many scenarios."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt

from simlab import api, plots
from simlab.analysis.drift import DEFAULT_TOLERANCE, chi2_homogeneity
from simlab.analysis.drift import total_variation as tv
from simlab.report.render import _median_round, render_report
from simlab.report.results import ScenarioRun
from simlab.report.terminal import format_p
from tests.report.report_html import external_references, words_unwrapped

# Slow tier (make test-slow): draws the copies' damage pictures of whole reports.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"
# Skeleton ×2: copies that fight alike. party-3v3's Brute ×2: the second Brute meets a
# defender the first one has already staggered, so their damage distributions differ.
SKELETONS = ROOT / "scenarios/glitters-d20/knight-vs-skeleton.yaml"
PARTY = ROOT / "scenarios/shattered-spirits/party-3v3.yaml"
ROW_7 = "profile: [0, 0, 1, 2, 3, 4, 5, 7, 8, 9, 11]"
ROW_7_RAISED = "profile: [0, 0, 1, 2, 3, 6, 5, 7, 8, 9, 11]"


@pytest.fixture(scope="module")
def skeletons() -> ScenarioRun:
    return api.run_scenario(SKELETONS, n=3000, seed=5)


@pytest.fixture(scope="module")
def party() -> ScenarioRun:
    return api.run_scenario(PARTY, n=3000, seed=5)


def test_copies_that_fight_alike_are_pooled(skeletons: ScenarioRun) -> None:
    labels = plots.copy_labels(skeletons)
    assert labels == {"Knight": "Knight", "Skeleton 1": "Skeleton ×2",
                      "Skeleton 2": "Skeleton ×2"}  # fmt: skip


def test_copies_pool_figure_by_figure(skeletons: ScenarioRun) -> None:
    # The Knight fights one Skeleton at a time: alike blows, different times to go down.
    assert plots.copy_groups(skeletons, "time_to_down") == [
        ("Skeleton", ["Skeleton 1", "Skeleton 2"], False)
    ]
    down = skeletons.result.combatants().set_index("combatant").down_rate
    assert down["Skeleton 1"] - down["Skeleton 2"] > 0.1


def test_copies_that_differ_are_not_pooled(party: ScenarioRun) -> None:
    assert plots.copy_groups(party) == [("Brute", ["Brute 1", "Brute 2"], False)]
    assert plots.copy_labels(party)["Brute 2"] == "Brute 2"
    # By hand: Brute 2's stone-strike on Kaito against Brute 1's, as the drift gate would.
    raw = party.result.damage_pmf()
    mine = raw[(raw.attack == "stone-strike") & (raw.defender == "Kaito")]
    first, second = (mine[mine.attacker == b].set_index("damage")["count"]
                     for b in ("Brute 1", "Brute 2"))  # fmt: skip
    both = first.index.union(second.index)
    a, b = (x.reindex(both, fill_value=0).to_numpy() for x in (first, second))
    assert tv(a, b) >= DEFAULT_TOLERANCE["pmf"] and chi2_homogeneity(a, b)[2] < 1e-6


def test_pooled_damage_is_the_sum_of_the_copies(skeletons: ScenarioRun) -> None:
    raw = skeletons.result.damage_pmf()
    pooled = plots.pooled_damage_pmf(skeletons)
    attack = raw[raw.attacker == "Skeleton 1"].attack.iloc[0]
    mine = pooled[(pooled.attacker == "Skeleton ×2") & (pooled.attack == attack)]
    copies = raw[raw.attacker.str.startswith("Skeleton") & (raw.attack == attack)]
    by_hand = copies.groupby("damage")["count"].sum()
    assert dict(zip(mine.damage, mine["count"], strict=True)) == by_hand.to_dict()
    # Copies as defenders pool too: the Knight's attacks on either are one row per damage.
    on = pooled[(pooled.attacker == "Knight") & (pooled.defender == "Skeleton ×2")]
    assert on["count"].sum() == raw[raw.attacker == "Knight"]["count"].sum()
    assert not pooled.attacker.str.fullmatch(r"Skeleton \d").any()


def test_pooled_hit_rates_recount_the_interval(skeletons: ScenarioRun) -> None:
    rates = plots.pooled_hit_rates(skeletons)
    raw = skeletons.result.hit_rates()
    row = rates[rates.attacker == "Skeleton ×2"].iloc[0]
    copies = raw[raw.attacker.str.startswith("Skeleton") & (raw.attack == row.attack)]
    assert row.attempts == copies.attempts.sum() and row.hits == copies.hits.sum()
    assert row.hit_rate_ci95_lo < row.hit_rate < row.hit_rate_ci95_hi


def test_a_copy_name_or_the_base_name_draws_the_pool(skeletons: ScenarioRun) -> None:
    attack = skeletons.result.damage_pmf().attack.iloc[-1]
    fig, ax = plt.subplots()
    by_base = plots.plot_damage_pmf(skeletons, "Skeleton", attack, ax=ax)
    by_copy = plots.plot_damage_pmf(skeletons, "Skeleton 1", attack, ax=ax)
    one = plots.plot_damage_pmf(skeletons, "Skeleton 1", attack, ax=ax, pool=False)
    plt.close(fig)
    assert by_base.equals(by_copy)
    assert one.attempts.iloc[0] < by_base.attempts.iloc[0]


PARTY_FIGHT = ROOT / "scenarios/opposed-tiers/party-fight.yaml"


def test_a_base_name_designates_copies_the_fight_tells_apart() -> None:
    """party-fight's four Raiders pool as ``Raider ×4`` at n=500 and fight differently at
    n=3000 (a larger sample tells them apart): ``"Raider"`` then failed with "never made;
    did you mean 'Raider 4'?", though they made the club attack thousands of times. The
    base name designates every copy: the Raiders pooled for this plot where their club
    did alike damage, each copy with ``pool=False`` and in the tables that draw each."""
    run = api.run_scenario(PARTY_FIGHT, n=3000, seed=3)
    assert plots.copy_groups(run)[0][2] is False  # not pooled
    copies = ["Raider 1", "Raider 2", "Raider 3", "Raider 4"]
    fig, axes = plt.subplots(1, 4)
    pooled = plots.plot_damage_at_least(run, "Raider", "club", ax=axes[0])
    each = plots.plot_damage_pmf(run, "Raider", "club", ax=axes[1], pool=False)
    names = [t.get_text() for t in axes[1].get_legend().get_texts()]
    rates = plots.plot_hit_rates(run, attacker="Raider", ax=axes[2])
    curves = plots.plot_time_to_down(run, combatant="Raider", ax=axes[3])
    plt.close(fig)
    assert set(pooled.attacker) == {"Raider ×4"}
    assert plots.damage_by_defender(run, "Raider", "club").attrs["pooled"] == {"Raider ×4": copies}
    assert list(dict.fromkeys(each.attacker)) == copies
    assert any(name.startswith("Raider 4 vs Scout (n=") for name in names), names
    assert list(rates.attacker.unique()) == copies
    assert list(curves.combatant.unique()) == copies


def test_a_base_name_draws_each_copy_where_they_did_different_damage(party: ScenarioRun) -> None:
    """party-3v3's second Brute meets a defender the first has staggered: their
    stone-strikes differ, so ``"Brute"`` draws each, named in the legend."""
    fig, ax = plt.subplots()
    drawn = plots.plot_damage_pmf(party, "Brute", "stone-strike", ax=ax)
    names = [t.get_text().split(" (n=")[0] for t in ax.get_legend().get_texts()]
    plt.close(fig)
    assert list(dict.fromkeys(drawn.attacker)) == ["Brute 1", "Brute 2"]
    assert "Brute 1 vs Kaito" in names and "Brute 2 vs Kaito" in names, names
    assert drawn.attrs["attacker"] == "Brute"


def test_a_name_meant_for_copies_is_suggested_with_them(skeletons: ScenarioRun) -> None:
    """``combatant="Skeleton"`` (a base name) was refused with "did you mean 'Skeleton
    2'?", one copy of two; it draws both, and a misspelling suggests the base name with
    its copies."""
    from simlab.errors import InputError

    fig, ax = plt.subplots()
    curves = plots.plot_time_to_down(skeletons, combatant="Skeleton", ax=ax)
    plt.close(fig)
    assert list(curves.combatant.unique()) == ["Skeleton 1", "Skeleton 2"]
    for wrong in ("Skeletn", "Skeleton 3"):
        with pytest.raises(InputError) as err:
            plots.plot_time_to_down(skeletons, combatant=wrong)
        assert str(err.value).endswith(
            f"got {wrong!r}; did you mean 'Skeleton' (Skeleton 1, Skeleton 2)?"
        ), err.value
    plt.close("all")


def test_a_name_meant_for_pooled_copies_is_suggested_with_them() -> None:
    """Where the copies are pooled (``Raider ×4``, a small sample that cannot tell them
    apart), a misspelt base name got no suggestion, and ``Raider 5`` the pool's label
    with its ``×``; a larger sample suggested ``'Raider' (Raider 1, …)``. Both do now."""
    from simlab.errors import InputError

    fight = api.simulate(ROOT / "scenarios/opposed-tiers/party-fight.yaml", n=500)
    assert "Raider ×4" in plots.copy_labels(fight).values()  # pooled at this n
    said = "did you mean 'Raider' (Raider 1, Raider 2, Raider 3, Raider 4)?"
    for call in (lambda: plots.plot_damage_pmf(fight, "Raidr", "club"),
                 lambda: plots.plot_hit_rates(fight, attacker="Raidr"),
                 lambda: plots.plot_hit_rates(fight, attacker="Raider 5")):  # fmt: skip
        with pytest.raises(InputError) as err:
            call()
        assert str(err.value).endswith(said), err.value
    plt.close("all")


def test_report_of_copies_has_no_duplicate_image(skeletons: ScenarioRun, tmp_path: Path) -> None:
    render_report([skeletons], tmp_path)
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    images = re.findall(r'<img alt="([^"]*)" src="([^"]+)"', html)
    sources = [src for _, src in images]
    assert len(set(sources)) == len(sources), "two images of the report are identical"
    digests = [hashlib.sha256(p.read_bytes()).hexdigest() for p in (tmp_path / "png").iterdir()]
    assert len(set(digests)) == len(digests)
    damage = [alt for alt, _ in images if alt.endswith(": damage")]
    # One figure per attacker's attack: Skeleton ×2 once, not Skeleton 1 and Skeleton 2.
    assert any(alt.startswith("Skeleton ×2 · ") for alt in damage)
    assert not any(re.match(r"Skeleton \d", alt) for alt in damage)
    raw = skeletons.result.damage_pmf()
    assert len(damage) == len(dict.fromkeys(zip(raw.attacker.str.replace(r" \d+$", "",
                                                                          regex=True),
                                                raw.attack, strict=True)))  # fmt: skip
    assert "Open black diamonds: the exact answer" in html


def test_copies_drawn_apart_are_named_on_the_page(party: ScenarioRun, tmp_path: Path) -> None:
    render_report([party], tmp_path)
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "Brute 1, Brute 2 fought differently" in html
    sources = re.findall(r'<img alt="[^"]*" src="([^"]+)"', html)
    assert len(set(sources)) == len(sources)


@pytest.mark.slow  # a baseline and a drifted report: about 7 s
def test_drift_draws_before_and_after_of_what_drifted(tmp_path: Path) -> None:
    text = QUICKSTART.read_text()
    before = api.run_scenario(api.loads(text, "quickstart.yaml"), 20_000, 1)
    written, _, _ = api.write_report([before], tmp_path / "base")
    changed = api.loads(text.replace(ROW_7, ROW_7_RAISED), "quickstart.yaml")
    after = api.run_scenario(changed, 20_000, 2)
    _, _, drift = api.write_report([after], tmp_path / "new", baseline=written["results"])
    assert drift is not None and not drift.ok
    html = (tmp_path / "new/report.html").read_text(encoding="utf-8")
    alts = re.findall(r'<img alt="(drift · [^"]*)"', html)
    assert "drift · Brute stone-strike → Kaito: damage per attack" in alts
    # Kaito's quick-jab did not drift: no before/after of it.
    assert not any("quick-jab" in a for a in alts)
    assert "grey, the baseline; colour, this run" in html
    # A p-value of 0 reads "< 0.0001", never "0".
    said = html.replace("\u00a0", " ").replace("\u2011", "-")  # kept on one line there
    assert "Holm p &lt; 0.0001" in said and "Holm p = 0," not in said
    # The same numbers again: nothing drifted, no before/after picture.
    _, _, same = api.write_report([before], tmp_path / "same", baseline=written["results"])
    assert same is not None and same.ok
    assert "drift ·" not in (tmp_path / "same/report.html").read_text(encoding="utf-8")


def test_before_after_pads_a_shorter_series() -> None:
    fig, ax = plt.subplots()
    bars = plots.plot_before_after(ax, np.array([0.5, 0.5]), np.array([0.2, 0.3, 0.5]),
                                   "x", "p", bars=True)  # fmt: skip
    curve = plots.plot_before_after(ax, np.array([0.1, 0.4]), np.array([0.1, 0.2, 0.3]),
                                    "x", "p")  # fmt: skip
    plt.close(fig)
    assert list(bars.baseline) == [0.5, 0.5, 0.0]  # a distribution: nothing beyond
    assert list(curve.baseline) == [0.1, 0.4, 0.4]  # a curve: stays where it ended


@pytest.mark.slow  # a report of many scenarios: about 7 s
def test_many_scenarios_report_progress_and_a_table_of_contents(
    party: ScenarioRun, tmp_path: Path
) -> None:
    quick = api.run_scenario(QUICKSTART, n=2000, seed=5)
    calls: list[tuple[int, int, str]] = []
    render_report([quick, party], tmp_path, progress=lambda *a: calls.append(a))
    assert calls == [(1, 2, "quickstart (shattered-spirits)"),
                     (2, 2, "party-3v3 (shattered-spirits)")]  # fmt: skip
    html = words_unwrapped((tmp_path / "report.html").read_text(encoding="utf-8"))
    toc = re.search(r'<table class="toc">(.*?)</table>', html, re.S)
    assert toc is not None
    rows = re.findall(r'<tr><td><a href="#([^"]+)">([^<]+)</a>', toc.group(1))
    assert [name for _, name in rows] == ["quickstart", "party-3v3"]
    for anchor, _ in rows:
        assert f'id="{anchor}"' in html
    party_row = toc.group(1).split('href="#' + rows[1][0])[1]
    wins = party.result.win_rates().set_index("side").win_rate
    assert f"party: {wins['party']:.0%}" in party_row
    assert "Brute 1 stone-strike" in party_row and "Ogre crushing-blow" in party_row
    assert external_references(html) == []
    markdown = (tmp_path / "report.md").read_text(encoding="utf-8")
    contents = markdown.split("## Contents")[1].split("\n## ")[0]
    table = [line for line in contents.splitlines() if line.startswith("|")]
    assert [line.split(" | ")[0] for line in table[2:]] == ["| quickstart", "| party-3v3"]


def test_format_p() -> None:
    assert [format_p(p) for p in (0.0, 3e-17, 2.3e-7, 0.00023, 0.034, 1.0, 0.1)] == [
        "< 0.0001", "< 0.0001", "< 0.0001", "0.00023", "0.034", "1.0", "0.10"]  # fmt: skip


def test_median_round_by_hand() -> None:
    # 10 encounters: downed in round 2 (3), round 3 (2), never (5): half by round 3.
    assert _median_round(np.array([0, 0, 3, 2, 0]), 10) == 3
    assert _median_round(np.array([0, 0, 3, 1, 0]), 10) is None  # 4 of 10: never half


def test_side_by_side_panels_give_a_defender_one_colour(party: ScenarioRun) -> None:
    from matplotlib.colors import to_hex

    fig, (left, right) = plt.subplots(1, 2)
    plots.plot_damage_pmf(party, "Kaito", "quick-jab", ax=left)
    plots.plot_damage_at_least(party, "Kaito", "quick-jab", ax=right)
    bars = {t.get_label(): to_hex(t.patches[0].get_facecolor()) for t in left.containers}
    steps = {ln.get_label(): to_hex(ln.get_color()) for ln in right.lines
             if ln.get_label().startswith("vs ")}  # fmt: skip
    plt.close(fig)
    # Brute 1 and 2 fought differently, but Kaito's jab hurt each alike: one pool here.
    assert [k.split(" (n=")[0] for k in bars] == ["vs Brute ×2", "vs Ogre"]
    assert {k.split(" (n=")[0]: v for k, v in bars.items()} == steps


def test_a_combatant_named_like_one_more_copy_is_not_pooled_with_them(tmp_path: Path) -> None:
    """``Skeleton`` (count: 2) plays as ``Skeleton 1`` and ``Skeleton 2``; a third
    skeleton listed apart as ``Skeleton 3`` is a combatant of its own. The damage plots
    pooled by the name pattern and drew "Skeleton ×3": they pool by the scenario's
    entries, recorded with the run and in results.json, so ``report --from`` does too."""
    from simlab.report.results import load_results, save_results

    text = SKELETONS.read_text().replace(
        "attacks: [rusty-spear]}",
        "attacks: [rusty-spear]}\n    - {name: Skeleton 3, hp: 13, attributes: {str: 10, "
        "dex: 14}, dc: 9, armor: leather, armor_bc: 2, attacks: [rusty-spear]}",
    )
    path = tmp_path / "three.yaml"
    path.write_text(text)
    run = api.run_scenario(path, n=2000, seed=5)
    assert run.result.meta["copies"] == {"Skeleton": ["Skeleton 1", "Skeleton 2"]}
    save_results(run, tmp_path / "results.json")
    (again,) = load_results(tmp_path / "results.json")
    for each in (run, again):
        assert [g[:2] for g in plots.copy_groups(each)] == [
            ("Skeleton", ["Skeleton 1", "Skeleton 2"])]  # fmt: skip
        attackers = set(plots.pooled_damage_pmf(each).attacker)
        assert "Skeleton 3" in attackers and "Skeleton ×3" not in attackers, attackers
    render_report([again], tmp_path / "report")
    page = (tmp_path / "report/report.md").read_text(encoding="utf-8")
    assert "×3" not in page and "Skeleton 3" in page


def test_a_hand_edited_record_of_copies_is_refused(tmp_path: Path, skeletons: ScenarioRun) -> None:
    import json

    from simlab.errors import InputError
    from simlab.report.results import load_results, save_results

    path = save_results(skeletons, tmp_path / "results.json")
    doc = json.loads(path.read_text())
    doc["scenarios"][0]["copies"] = {"Skeleton": ["Skeleton 1", "Nobody"]}
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError, match=r"copies\.Skeleton: expected the names of its copies"):
        load_results(path)
