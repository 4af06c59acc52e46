"""A win rate of a side that can never win is refused up front, as the time-to-down of
a combatant no one attacks is: its enemies can never all go down."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import simlab
from simlab.cli import main
from simlab.errors import InputError
from tests.tuning.cases import SS_DUEL

#: ss-duel's defender attacks no one: the Attacker never goes down, the defender never wins.
NEVER = ("expected a side that can win; got 'defender': it wins when every enemy is down, "
         "and 'Attacker' never is: no one attacks it (nobody on another side makes an "
         "attack), so it never does")  # fmt: skip

#: Blue attacks no one, but red's Wounded starts Bleeding, which can take him down.
BLEEDING = """
scenario: bled-out
rules: glitters-d20
seed: 3
max_rounds: 25
attacks:
  sabre: {damage: 1d8, type: slashing, bonus: 5}
sides:
  red:
    - {name: Wounded, hp: 12, dc: 9, bleeding: 4, attacks: [sabre]}
  blue:
    - {name: Fresh, hp: 40, dc: 9, attacks: []}
"""


@pytest.mark.parametrize("args", [
    ["tune", str(SS_DUEL), "--vary", "Defender.hp=10:40", "--target", "win_rate:defender=0.5"],
    ["run", str(SS_DUEL), "--precision", "0.01", "--precision-on", "win_rate:defender"],
])  # fmt: skip
def test_the_commands_refuse_a_side_that_never_wins(args: list[str]) -> None:
    """Exit 2 with the reason, before anything runs (it was searched, and ended "the
    field does not move it")."""
    done = CliRunner().invoke(main, [*args, "-n", "500"])
    assert done.exit_code == 2, done.output
    assert f"{args[-2]} {args[-1]}: {NEVER}" in " ".join(done.output.split()), done.output
    assert "Traceback" not in done.output


def test_tune_refuses_a_side_that_never_wins() -> None:
    with pytest.raises(InputError, match="expected a side that can win; got 'defender'"):
        simlab.tune(simlab.load(SS_DUEL), "Defender.hp=10:40", "win_rate:defender=0.5", n=200)


def test_a_side_whose_enemy_goes_down_by_a_status_can_win() -> None:
    """No one attacks Wounded, but he bleeds: blue can win, and its win rate is tuned
    (the check is the one that knows harm without attacks, not "no one attacks")."""
    tuned = simlab.tune(simlab.loads(BLEEDING), "Wounded.bleeding=1:6", "win_rate:blue=0.3",
                        n=300, exact=False)  # fmt: skip
    assert tuned.evaluations
    assert max(e.figure for e in tuned.evaluations) > 0
    attacker = simlab.tune(simlab.load(SS_DUEL), "Defender.hp=10:40", "win_rate:attacker=0.5",
                           n=200)  # fmt: skip
    assert attacker.evaluations
