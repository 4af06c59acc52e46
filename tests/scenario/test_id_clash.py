"""A scenario id that two files share is said beside the other problems of the file.

``validate``, ``report``, ``check`` and ``baseline update`` refuse a folder with two files
of one id under the same rules (figures and baselines tell scenarios apart by it), but
only said so once the later file was otherwise valid: a designer who copied a scenario
and made a slip in the copy mended the slip, ran again, and only then heard of the id.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import simlab
from simlab.cli import main
from simlab.errors import ScenarioError

DUEL = """\
scenario: duel
rules: zones-3d6
attacks:
  cut: {damage: 1d6+2}
sides:
  squire:
    - {name: Squire, hp: 16, attacks: [cut]}
  pell:
    - {name: Pell, hp: 30, evasion: 1}
"""

TYPO = "unknown key 'hpp'; expected one of: "


def a_folder(tmp_path: Path, copy: str) -> tuple[Path, str]:
    """A folder of DUEL as ``a.yaml`` and ``copy`` as ``b.yaml``; and ``b.yaml``'s path."""
    (tmp_path / "a.yaml").write_text(DUEL)
    (tmp_path / "b.yaml").write_text(copy)
    return tmp_path, f"{tmp_path / 'b.yaml'}"


def clash(path: str, line: int, first: str) -> str:
    return (f"{path}:{line}:11: expected a scenario id not used by {first} under the same "
            "rules; got 'duel' again")  # fmt: skip


def test_validate_says_the_clash_beside_a_slip_of_the_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a_folder(tmp_path, DUEL.replace("hp: 16", "hpp: 16"))
    monkeypatch.chdir(tmp_path)  # short paths: the "ok" line fits 80 columns
    result = CliRunner().invoke(main, ["validate", "."])
    assert result.exit_code == 2
    problems = result.output.splitlines()[1:]  # after "ok: a.yaml: …"
    assert problems[0] == clash("b.yaml", 1, "a.yaml")
    assert problems[1].startswith(f"b.yaml:7:22: {TYPO}")
    assert len(problems) == 2


def test_a_file_that_does_not_load_is_the_first_of_its_id_for_later_files(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.yaml").write_text(DUEL.replace("hp: 16", "hpp: 16"))
    (tmp_path / "b.yaml").write_text(DUEL)
    result = CliRunner().invoke(main, ["validate", str(tmp_path)])
    assert result.exit_code == 2
    assert clash(str(tmp_path / "b.yaml"), 1, str(tmp_path / "a.yaml")) in result.output


@pytest.mark.parametrize(
    "copy",
    [
        DUEL.replace("rules: zones-3d6", "rules: zone-3d6"),  # its rules unknown
        DUEL.replace("scenario: duel", "scenario: [duel]"),  # its id no text
        DUEL.replace("scenario: duel", "scenario: other").replace("hp: 16", "hpp: 16"),
        DUEL.replace("hp: 16,", "hp: 16"),  # no YAML: a ',' left off
    ],
)
def test_no_clash_is_said_where_the_file_does_not_say_the_same_id(
    tmp_path: Path, copy: str
) -> None:
    folder, _ = a_folder(tmp_path, copy)
    result = CliRunner().invoke(main, ["validate", str(folder)])
    assert result.exit_code == 2
    assert "not used by" not in result.output


def test_run_scenarios_says_the_clash_beside_the_slip_before_simulating(
    tmp_path: Path,
) -> None:
    folder, copy = a_folder(tmp_path, DUEL.replace("hp: 16", "hpp: 16"))
    with pytest.raises(ScenarioError) as caught:
        simlab.run_scenarios(folder, n=100)
    problems = [str(problem) for problem in caught.value.problems]
    assert problems[0] == clash(copy, 1, str(folder / "a.yaml"))
    assert problems[1].startswith(f"{copy}:7:22: {TYPO}")
    assert len(problems) == 2
