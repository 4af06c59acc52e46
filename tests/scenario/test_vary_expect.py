"""``--vary expect[N]…``: an item of the ``expect:`` list, as ``--set`` spells it, in a
sweep.

A sweep checks no spec, so a varied bound made points that played the same fight, alike
in every table, under a header naming the bound as varied: it is refused before anything
runs, naming the ``--vary``, and pointing to ``simlab check --set``. A tune of a bound is
refused the same way, where it ran every value and ended "the field does not move it".
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import simlab
from simlab.cli import main
from simlab.errors import InputError

DUEL = """\
scenario: t
rules: zones-3d6
max_rounds: 5
attacks:
  cut: {damage: 1d6+2}
sides:
  squire:
    - {name: Squire, hp: 16, attacks: [cut]}
  pell:
    - {name: Pell, hp: 30, evasion: 1}
expect:
  - {figure: win_rate, side: squire, at_least: 0.5}
  - {figure: hit_rate, attack: cut, defender: Pell, between: [0.2, 0.9]}
"""

REFUSED = (
    "{}: expected a change to the fight; got one to 'expect', which a sweep does not "
    "check: its points would play the same (try a spec's bound with {})"
)


def sweep(tmp_path: Path, *args: str, out: bool = True) -> tuple[int, str, Path]:
    """Run ``simlab sweep`` on DUEL with ``args`` (and an ``--out`` folder, its path
    returned)."""
    path, folder = tmp_path / "duel.yaml", tmp_path / "out"
    path.write_text(DUEL)
    written = ["--out", str(folder)] if out else []
    result = CliRunner().invoke(main, ["sweep", str(path), "-n", "200", *written, *args])
    return result.exit_code, result.output, folder


@pytest.mark.parametrize(
    "vary",
    [
        "expect[0].at_least=0.3,0.6",
        "expect[1].between=[0.1, 0.5],[0.2, 0.8]",
        "expect[0].note=a,b",
        "expect[0]={figure: draw_rate, at_most: 1},{figure: draw_rate, at_most: 0.5}",
    ],
)
def test_a_varied_spec_is_refused_before_anything_runs(tmp_path: Path, vary: str) -> None:
    code, output, out = sweep(tmp_path, "--vary", vary)
    assert code == 2
    assert output.strip() == REFUSED.format(f"--vary {vary}", "simlab check --set")
    assert not out.exists()


def test_in_a_grid_the_varied_spec_is_named(tmp_path: Path) -> None:
    code, output, _ = sweep(tmp_path, "--vary", "Pell.hp=20,30",
                            "--vary", "expect[0].at_least=0.3,0.6")  # fmt: skip
    assert code == 2
    assert output.startswith("--vary expect[0].at_least=0.3,0.6: expected a change to the fight")


def test_a_spec_past_the_list_is_named_with_the_items_there_are(tmp_path: Path) -> None:
    code, output, _ = sweep(tmp_path, "--vary", "expect[2].at_least=0.3,0.6")
    assert code == 2
    assert output.strip() == ("--vary expect[2].at_least=0.3,0.6: expected an item of 'expect', "
                              "expect[0] to expect[1] (counted from 0); got expect[2] "
                              "(to add one, set it whole: expect[2]=…)")  # fmt: skip


def test_a_bound_the_spec_refuses_is_located_with_the_vary(tmp_path: Path) -> None:
    code, output, _ = sweep(tmp_path, "--vary", "expect[1].at_least=0.3,0.6")
    assert code == 2
    assert "expected exactly one of at_least, at_most, between; got at_least, between" in output
    assert "(with expect[1].at_least=0.3 from --vary expect[1].at_least=0.3,0.6)" in output


def test_a_spec_set_for_every_point_still_sweeps(tmp_path: Path) -> None:
    code, output, _ = sweep(tmp_path, "--set", "expect[0].at_least=0.3",
                            "--vary", "Pell.hp=20,30", out=False)  # fmt: skip
    assert code == 0, output
    assert "with expect[0].at_least=0.3" in output


def test_python_names_the_vary_key_and_simlab_check() -> None:
    with pytest.raises(InputError) as caught:
        simlab.sweep(simlab.loads(DUEL), {"expect[0].at_least": [0.3, 0.6]}, n=100)
    assert str(caught.value) == REFUSED.format(
        "vary expect[0].at_least", "simlab.check(scenario.with_(...))"
    )


TUNE_REFUSED = (
    "{}: expected a change to the fight; got one to 'expect', which a tune does not "
    "check: its values would play the same (try a spec's bound with {})"
)


#: A tune's and a comparison's command given a change to a spec, the change as the message
#: names it, and the message's template (``compare A --set expect[…]`` played A twice
#: and said no figure changed).
SPEC_CHANGED = [
    (["tune", "--vary", "expect[0].at_least=0.1:0.9", "--target", "win_rate:squire=0.5"],
     "--vary expect[0].at_least=0.1:0.9", TUNE_REFUSED),
    (["compare", "--set", "expect[0].at_least=0.9"], "--set expect[0].at_least=0.9",
     "{}: expected a change to the fight; got one to 'expect', which a comparison does not "
     "check: A and B would play the same (try a spec's bound with {})"),
]  # fmt: skip


@pytest.mark.parametrize(("args", "label", "refused"), SPEC_CHANGED)
def test_a_tuned_or_compared_spec_is_refused_before_anything_runs(
    tmp_path: Path, args: list[str], label: str, refused: str
) -> None:
    path = tmp_path / "duel.yaml"
    path.write_text(DUEL)
    result = CliRunner().invoke(main, [args[0], str(path), *args[1:], "-n", "200"])
    assert result.exit_code == 2, result.output
    assert " ".join(result.output.split()) == refused.format(label, "simlab check --set")


def test_python_names_the_tuned_spec_and_simlab_check() -> None:
    with pytest.raises(InputError) as caught:
        simlab.tune(simlab.loads(DUEL), ("expect[0].at_least", 0.1, 0.9), "win_rate:squire=0.5",
                    n=100)  # fmt: skip
    assert str(caught.value) == TUNE_REFUSED.format(
        "vary expect[0].at_least=0.1:0.9", "simlab.check(scenario.with_(...))"
    )


def test_python_names_the_compared_spec_and_simlab_check() -> None:
    with pytest.raises(InputError) as caught:
        simlab.compare(simlab.loads(DUEL), changes={"expect[0].at_least": 0.9}, n=100)
    assert str(caught.value).endswith(
        "which a comparison does not check: A and B would play the same (try a spec's "
        "bound with simlab.check(scenario.with_(...)))"
    ), caught.value
