"""A message names an argument as its reader typed it: the Python keyword in Python
(``target``, ``precision``, ``precision_on``, ``vary``, ``seed=``), the option on the
command line (``--target``, ``--precision-on``, ``--seed``), never the other's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from click.testing import CliRunner

import simlab
from simlab.cli import main
from simlab.errors import InputError
from tests.tuning.cases import SS_DUEL

TARGET = "median_time_to_down:Defender=5"

PYTHON_CALLS: list[tuple[Callable[[Any], Any], str]] = [
    (lambda d: simlab.tune(d, "Defender.hp=5:60", "median_time_to_down:Defendr=5"),
     "target median_time_to_down:Defendr=5: expected a combatant"),
    (lambda d: simlab.simulate(d, n=2000, precision=0),
     "expected a half-width in (0, 1] for precision; got 0"),
    (lambda d: simlab.simulate(d, n=2000, precision=0.01, precision_on=["hit_rate:strik"]),
     "precision_on hit_rate:strik: expected an attack of the scenario (strike); got 'strik'"),
    (lambda d: simlab.simulate(d, n=2000, precision_on=["hit_rate:strike"]),
     "precision_on: expected precision= (or precision: in the scenario) to go with it"),
    (lambda d: simlab.sweep(d, {}, n=1000),
     "vary: expected at least one NAME.FIELD and its values; got none"),
    (lambda d: simlab.sweep(d, {"seed": [1, 2]}, n=1000),
     "vary seed: expected a change to the fight; got one to 'seed', which a sweep keeps "
     "the same for every variant (set it with seed= and n=)"),
    (lambda d: simlab.tune(d, ("seed", 1, 3), TARGET, n=1000),
     "vary seed=1:3: expected a change to the fight; got one to 'seed', which a tune keeps "
     "the same for every variant (set it with seed= and n=)"),
    (lambda d: simlab.compare(d, changes={"encounters": 5}, n=1000),
     "(set it with seed= and n=)"),
    (lambda d: simlab.tune(d, ("Defender.hp", 5, 60), TARGET, n=1000, precision=0.01,
                           precision_on=["hit_rat:strike"]),
     "precision_on hit_rat:strike: expected a figure"),
    (lambda d: d.with_("Defender.guard=x"), "override Defender.guard=x: expected an integer"),
    (lambda d: d.with_({"Defender.guard": "x"}),
     "override Defender.guard: expected an integer; got 'x'"),
    (lambda d: simlab.sweep(d, {"Defender.guard": ["x"]}, n=100),
     "Defender.guard=x from vary Defender.guard: expected an integer; got 'x'"),
    (lambda d: simlab.tune(d, "Defender.hp=5:60:5", TARGET),
     "vary Defender.hp=5:60:5: expected LO:HI without a STEP (tune bisects the range; "
     "simlab.sweep takes a STEP); got '5:60:5'"),
]  # fmt: skip


@pytest.mark.parametrize(("call", "words"), PYTHON_CALLS)
def test_python_messages_name_the_python_argument(
    duel: Any, call: Callable[[Any], Any], words: str
) -> None:
    """They quoted ``--target``, ``--precision``, ``--precision-on`` and ``--vary``,
    which a notebook never typed."""
    with pytest.raises(InputError) as err:
        call(duel)
    message = str(err.value)
    assert words in message, message
    assert "--" not in message, message


@pytest.mark.parametrize(
    "args",
    [
        ["sweep", "--vary", "seed=1:3"],
        ["compare", "--set", "seed=3"],
        ["tune", "--vary", "seed=1:3", "--target", TARGET],
    ],
)
def test_command_line_messages_name_the_options(args: list[str]) -> None:
    """They ended "(set it with seed= and n=, or --seed and -n)": Python's keywords too."""
    command, *rest = args
    done = CliRunner().invoke(main, [command, str(SS_DUEL), *rest, "-n", "200"])
    assert done.exit_code == 2, done.output
    message = " ".join(done.output.split())
    assert message.endswith("(set it with --seed and -n)"), message
    assert "seed=" not in message.replace("seed=1:3", "").replace("seed=3", ""), message


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--precision", "0.01", "--precision-on", "hit_rate:strik"],
         "--precision-on hit_rate:strik: expected an attack of the scenario (strike)"),
        (["--precision-on", "hit_rate:strike"],
         "--precision-on: expected --precision H (or precision: in the scenario)"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("command", ["run", "sweep", "compare", "tune"])
def test_precision_on_is_named_as_the_command_line_spells_it(
    command: str, args: list[str], words: str
) -> None:
    extra = {"sweep": ["--vary", "Defender.hp=20,30"], "compare": ["--set", "Defender.hp=20"],
             "tune": ["--vary", "Defender.hp=5:60", "--target", TARGET, "--no-exact"]}  # fmt: skip
    done = CliRunner().invoke(main, [command, str(SS_DUEL), *extra.get(command, []), *args,
                                     "-n", "200"])  # fmt: skip
    assert done.exit_code == 2, done.output
    assert words in " ".join(done.output.split())
    assert "precision_on" not in done.output and "precision=" not in done.output


@pytest.mark.parametrize("exact", [["--no-exact"], []])
def test_tune_checks_precision_on_names_up_front(exact: list[str]) -> None:
    """A side the duel lacks: refused only once a value was simulated, so the exact
    engine's answers (every value of this duel) let it pass without a word, exit 0."""
    args = ["tune", str(SS_DUEL), "--vary", "Defender.hp=10:40", "--target", TARGET,
            "--precision", "0.05", "--precision-on", "win_rate:party", "-n", "200"]  # fmt: skip
    done = CliRunner().invoke(main, [*args, *exact])
    assert done.exit_code == 2, done.output
    assert " ".join(done.output.split()) == (
        "--precision-on win_rate:party: expected a side (attacker, defender); got 'party'"
    )


@pytest.mark.parametrize("exact", [False, True])
def test_tune_in_python_checks_precision_on_names_up_front(duel: Any, exact: bool) -> None:
    with pytest.raises(InputError) as err:
        simlab.tune(duel, "Defender.hp=10:40", TARGET, n=200, exact=exact, precision=0.05,
                    precision_on=["win_rate:party"])  # fmt: skip
    assert str(err.value) == (
        "precision_on win_rate:party: expected a side (attacker, defender); got 'party'"
    )
