"""Arguments left out or misnamed in a notebook: an InputError saying what the function
expects (and, for a name taken from a result, the names it could be), as the command
line's errors do, where Python's own TypeError said only what was missing or unknown
(``simlab.binding``)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib
import pytest

import simlab
from simlab.errors import InputError

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[1]
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"
DUEL = ROOT / "scenarios/benchmarks/ss-duel.yaml"
ATTACKS = "(the attacks made: Kaito quick-jab, Brute stone-strike)"


@pytest.fixture(scope="module")
def res() -> Any:
    return simlab.simulate(QUICKSTART, n=300, seed=1)


@pytest.fixture
def ax() -> Any:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots()
    yield axes
    plt.close(fig)


@pytest.mark.parametrize("plot", ["plot_damage_pmf", "plot_damage_at_least"])
def test_a_damage_plot_without_its_attack_names_the_attacks_made(
    res: Any, ax: Any, plot: str
) -> None:
    """``plot_damage_pmf(res, ax=ax)`` raised ``TypeError: plot_damage_pmf() missing 2
    required positional arguments: 'attacker' and 'attack'``, naming neither what to
    write nor the attacks the result holds."""
    draw = getattr(simlab, plot)
    with pytest.raises(InputError) as neither:
        draw(res, ax=ax)
    assert str(neither.value) == (
        f"{plot}(): expected attacker= and attack= (str); got neither {ATTACKS}"
    )
    with pytest.raises(InputError) as one:
        draw(res, "Kaito", ax=ax)
    assert str(one.value) == f"{plot}(): expected attack= (str); got no attack {ATTACKS}"
    with pytest.raises(InputError, match=r"expected attacker= \(str\); got no attacker \(the"):
        draw(res, attack="quick-jab", ax=ax)


@pytest.mark.parametrize(
    "plot",
    ["plot_damage_pmf", "plot_damage_at_least", "plot_time_to_down", "plot_survival",
     "plot_hit_rates", "plot_win_rates"],
)  # fmt: skip
def test_a_plot_without_its_result_says_what_to_give(plot: str, ax: Any) -> None:
    with pytest.raises(InputError) as err:
        getattr(simlab, plot)(ax=ax)
    assert "(): expected result= (Result | ScenarioRun)" in str(err.value)


#: A keyword a designer is likely to write for another, in each public function that
#: takes one, and the keyword the error names instead.
MISNAMED: list[tuple[Callable[[Any], object], str]] = [
    (lambda r: simlab.simulate(QUICKSTART, encounters=100), "got encounters=; did you mean n=?"),
    (lambda r: simlab.simulate(QUICKSTART, encounter=100), "got encounter=; did you mean n=?"),
    (lambda r: simlab.simulate(QUICKSTART, n=100, thread=1), "did you mean threads=?"),
    (lambda r: simlab.simulate(QUICKSTART, n=100, precison=0.1), "did you mean precision=?"),
    (lambda r: simlab.check(QUICKSTART, encounters=100), "got encounters=; did you mean n=?"),
    (lambda r: simlab.sweep(DUEL, values={"Defender.guard": [0, 1]}), "did you mean vary=?"),
    (lambda r: simlab.compare(DUEL, set={"Defender.guard": 2}), "did you mean changes=?"),
    (lambda r: simlab.compare(DUEL, change={"Defender.guard": 2}), "did you mean changes=?"),
    (lambda r: simlab.override(DUEL, set={"Defender.guard": 2}), "did you mean changes=?"),
    (lambda r: simlab.tune(DUEL, "Defender.hp=5:40", targt="down_rate:Defender=0.5"),
     "got targt=; did you mean target=?"),
    (lambda r: simlab.run_scenarios([QUICKSTART], encounters=100), "did you mean n=?"),
    (lambda r: simlab.write_results(r, out="x"), "got out=; did you mean out_dir=?"),
    (lambda r: simlab.load(file=QUICKSTART), "load(): expected one of its arguments (path); "
     "got file=; did you mean path=?"),
    (lambda r: simlab.plot_damage_pmf(r, "Kaito", attak="quick-jab"), "did you mean attack=?"),
    (lambda r: simlab.plot_time_to_down(r, combatants=["Kaito"]), "did you mean combatant=?"),
    (lambda r: simlab.plot_hit_rates(r, attackers="Kaito"), "did you mean attacker=?"),
    (lambda r: simlab.plot_win_rates(r, axes=None), "got axes=; did you mean ax=?"),
    (lambda r: r.damage(levl=0.9), "Result.damage(): expected one of its arguments (level); "
     "got levl=; did you mean level=?"),
    (lambda r: r.hit_rates(attacker="Kaito"), "Result.hit_rates(): expected one of its "
     "arguments (level); got attacker= (the table has a row for each one: select them with "
     "pandas, .hit_rates().query(\"attacker == 'Kaito'\"))"),
    (lambda r: simlab.load_results(file="x"), "load_results(): expected one of its arguments "
     "(path, name); got file=; did you mean path=?"),
    (lambda r: simlab.save_results(r, file="x"), "save_results(): expected one of its "
     "arguments (runs, path); got file=; did you mean path=?"),
    (lambda r: r.readable_trace(attacker="Kaito"), "Result.readable_trace(): expected no "
     "arguments; got attacker="),
]  # fmt: skip


def test_a_sweep_plot_without_its_sweep_says_what_to_give() -> None:
    with pytest.raises(InputError, match=r"^plot_sweep\(\): expected sweep= \(SweepResult\); "
                       r"got no sweep$"):  # fmt: skip
        simlab.plot_sweep(figure="hit_rate")


def test_a_tune_plot_without_its_tuning_says_what_to_give(ax: Any) -> None:
    """``simlab.plot_tune(ax=ax)`` raised Python's TypeError, ``axe=`` one naming no
    argument it takes."""
    with pytest.raises(InputError, match=r"^plot_tune\(\): expected result= \(TuneResult\); "
                       r"got no result$"):  # fmt: skip
        simlab.plot_tune(ax=ax)
    with pytest.raises(InputError, match=r"^plot_tune\(\): expected one of its arguments "
                       r"\(result, ax\); got axe=; did you mean ax=\?$"):  # fmt: skip
        simlab.plot_tune(None, axe=ax)


#: A sweep's and a tuning's tables, with a keyword they do not take.
SWEEP_AND_TUNE: list[tuple[Callable[[Any, Any], object], str]] = [
    (lambda sw, tu: sw.attacks(attacker="Attacker"), "SweepResult.attacks(): expected no "
     "arguments; got attacker= (the table has a row for each one: select them with "
     "pandas, .attacks().query(\"attacker == 'Attacker'\"))"),
    (lambda sw, tu: sw.combatants(levl=0.9), "SweepResult.combatants(): expected no "
     "arguments; got levl="),
    (lambda sw, tu: sw.sides(side="x"), "SweepResult.sides(): expected no arguments; got "
     "side= (the table has a row"),
    (lambda sw, tu: sw.damage_pmf(1), "SweepResult.damage_pmf(): expected no arguments; "
     "got 1"),
    (lambda sw, tu: tu.evaluated(level=0.9), "TuneResult.evaluated(): expected no "
     "arguments; got level="),
]  # fmt: skip


@pytest.mark.parametrize(("call", "words"), SWEEP_AND_TUNE)
def test_a_sweeps_and_a_tunings_tables_say_they_take_no_argument(call: Any, words: str) -> None:
    """Each raised ``TypeError: SweepResult.attacks() got an unexpected keyword argument
    'attacker'``; a notebook selects the rows with pandas."""
    sw = simlab.sweep(DUEL, {"Defender.guard": [0, 1]}, n=200, exact=False)
    tu = simlab.tune(DUEL, "Defender.hp=5:40", "median_time_to_down:Defender=5", n=200)
    with pytest.raises(InputError) as err:
        call(sw, tu)
    assert words in str(err.value)
    assert ("query" in str(err.value)) == ("the table has" in words)


#: The exact engine's entry point and its answer's tables, given arguments they do not
#: take; each raised a bare TypeError (``_CallableModule.__call__() got an unexpected
#: keyword argument 'n'``, naming a class of simlab's and not what to write).
EXACT: list[tuple[Callable[[Any], object], str]] = [
    (lambda ex: simlab.exact(scenario=QUICKSTART, n=3), "exact(): expected one of its "
     "arguments (scenario); got n="),
    (lambda ex: simlab.exact(scn=QUICKSTART), "exact(): expected one of its arguments "
     "(scenario); got scn=; did you mean scenario=?"),
    (lambda ex: simlab.exact(), "exact(): expected scenario= (ScenarioBase | str | "
     "os.PathLike[str]); got no scenario"),
    (lambda ex: ex.attacks(attacker="Kaito"), "ExactResult.attacks(): expected no "
     "arguments; got attacker= (the table has a row for each one: select them with "
     "pandas, .attacks().query(\"attacker == 'Kaito'\"))"),
    (lambda ex: ex.damage_pmf(attack="quick-jab"), "ExactResult.damage_pmf(): expected no "
     "arguments; got attack= (the table has a row for each one: select them with pandas, "
     ".damage_pmf().query(\"attack == 'quick-jab'\"))"),
    (lambda ex: ex.caveats(levl=0.9), "ExactResult.caveats(): expected no arguments; got "
     "levl="),
    (lambda ex: ex.time_to_down(0.9), "ExactResult.time_to_down(): expected no arguments; "
     "got 0.9"),
    (lambda ex: ex.summary(1), "ExactResult.summary(): expected no arguments; got 1"),
]  # fmt: skip


@pytest.mark.parametrize(("call", "words"), EXACT)
def test_the_exact_engine_says_what_it_takes(call: Any, words: str) -> None:
    with pytest.raises(InputError) as err:
        call(simlab.exact(QUICKSTART))
    assert str(err.value) == words


@pytest.mark.parametrize(("call", "words"), MISNAMED)
def test_a_misnamed_keyword_names_the_one_meant(res: Any, call: Any, words: str) -> None:
    """Each raised ``TypeError: simulate() got an unexpected keyword argument
    'encounters'``: the name to use was for the reader to find."""
    with pytest.raises(InputError) as err:
        call(res)
    assert words in str(err.value)


def test_the_function_list_its_arguments_and_what_is_missing() -> None:
    with pytest.raises(InputError) as err:
        simlab.simulate(QUICKSTART, encounters=100)
    assert str(err.value).startswith(
        "simulate(): expected one of its arguments (scenario, n, seed, threads, block_size, "
    )
    with pytest.raises(InputError, match=r"^tune\(\): expected target= \(str\); got no target$"):
        simlab.tune(DUEL, "Defender.hp=5:40")
    with pytest.raises(InputError, match=r"^sweep\(\): expected vary=; got no vary$"):
        simlab.sweep(DUEL, n=100)
    with pytest.raises(InputError, match=r"^simulate\(\): expected scenario once; got it by "):
        simlab.simulate(QUICKSTART, scenario=QUICKSTART)
    with pytest.raises(InputError, match=r"at most 1 argument by position \(level\), the others"):
        simlab.simulate(QUICKSTART, n=100).time_to_down(0.9, 3)


#: A name given where a plot takes its axes (the second argument of the hit-rate and
#: win-rate plots), and what the error says of where it goes: it said only "expected an
#: Axes … got 'Kaito'".
NAME_FOR_AX: list[tuple[Callable[[Any], object], str]] = [
    (lambda r: simlab.plot_hit_rates(r, "Kaito"), "got 'Kaito'; a name goes as "
     "attacker='Kaito'"),
    (lambda r: simlab.plot_win_rates(r, "Kaito"), "got 'Kaito'; plot_win_rates() takes no "
     "name"),
    (lambda r: simlab.plot_time_to_down(r, "Kaito", "Brute"), "got 'Brute'; a name goes as "
     "combatant= or side="),
    (lambda r: simlab.plot_damage_pmf(r, "Kaito", "quick-jab", ax="Brute"), "got 'Brute'; "
     "a name goes as attacker=, attack= or defender="),
]  # fmt: skip


@pytest.mark.parametrize(("call", "words"), NAME_FOR_AX)
def test_a_name_given_for_the_axes_says_where_it_goes(res: Any, call: Any, words: str) -> None:
    with pytest.raises(InputError) as err:
        call(res)
    assert str(err.value) == f"expected an Axes (matplotlib.pyplot.subplots) for ax; {words}"


def test_a_checked_function_keeps_its_signature_and_docs() -> None:
    """``help()`` and a notebook's tooltip read the function's own."""
    from simlab import api
    from simlab.report import plots

    assert list(inspect.signature(simlab.simulate).parameters)[:3] == ["scenario", "n", "seed"]
    assert simlab.simulate.__doc__ == api.simulate.__wrapped__.__doc__  # type: ignore[attr-defined]
    assert list(inspect.signature(plots.plot_damage_pmf).parameters)[:3] == [
        "result",
        "attacker",
        "attack",
    ]


def test_a_plots_warning_points_at_the_callers_line(res: Any, ax: Any) -> None:
    """The wrapper is a frame between the notebook and the plot: the warning about exact
    answers not drawn is still the caller's line, not simlab's."""
    with pytest.warns(UserWarning, match="exact answers not drawn") as told:
        simlab.plot_time_to_down(res, ax=ax, exact=simlab.exact(QUICKSTART))
    assert told[0].filename == __file__
