"""The Python API's arguments of the wrong type: an InputError naming the argument,
``expected X; got Y``, before anything runs or is written (``simlab.arguments``) —
never a TypeError or AttributeError from deep inside, nor a wrong file."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import simlab
from simlab import api
from simlab.errors import InputError, ScenarioError
from simlab.limits import read_bounded
from simlab.report.files import OutputError, prepare_file, prepare_output

ROOT = Path(__file__).resolve().parents[1]
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"
DUEL = ROOT / "scenarios/benchmarks/ss-duel.yaml"
SCENARIO = "expected a scenario (simlab.load) or the path of a scenario file"
N = 400


@pytest.fixture(scope="module")
def made() -> dict[str, Any]:
    """One real object of each kind a writer takes."""
    return {
        "result": simlab.simulate(QUICKSTART, n=N),
        "exact": simlab.exact(DUEL),
        "sweep": simlab.sweep(DUEL, {"Defender.guard": [0, 1]}, n=N, exact=False),
        "compare": simlab.compare(DUEL, changes={"Defender.guard": 2}, n=N),
        "tune": simlab.tune(DUEL, "Defender.hp=5:40", "median_time_to_down:Defender=5", n=N),
        "run": api.run_scenario(QUICKSTART, n=N),
    }


def _words(text: str) -> str:
    return re.escape(text)


# -- scenarios ---------------------------------------------------------------------------

#: Each function taking a scenario or a path, called with ``bad`` in that place.
TAKE_SCENARIO: dict[str, Callable[[Any], object]] = {
    "simulate": lambda bad: simlab.simulate(bad, n=N),
    "exact": lambda bad: simlab.exact(bad),
    "override": lambda bad: simlab.override(bad, {"Defender.guard": 1}),
    "sweep": lambda bad: simlab.sweep(bad, {"Defender.guard": [0, 1]}, n=N),
    "compare": lambda bad: simlab.compare(bad, changes={"Defender.guard": 2}, n=N),
    "tune": lambda bad: simlab.tune(bad, "Defender.hp=5:40", "median_time_to_down:Defender=5"),
    "run_scenario": lambda bad: api.run_scenario(bad, n=N),
}


@pytest.mark.parametrize("name", TAKE_SCENARIO)
@pytest.mark.parametrize(
    ("bad", "got"),
    [(None, "None"), ({"rules": "shattered-spirits"}, "a dict"), (5, "5"),
     ([str(QUICKSTART)], "a list"), (b"scenario.yaml", "bytes")],
)  # fmt: skip
def test_what_is_neither_a_scenario_nor_a_path_is_refused(name: str, bad: object, got: str) -> None:
    """Each once raised ``TypeError: expected str, bytes or os.PathLike object``."""
    with pytest.raises(InputError, match=_words(SCENARIO) + r"( for a)?; got " + _words(got)):
        TAKE_SCENARIO[name](bad)


def test_a_result_is_not_a_scenario(made: dict[str, Any]) -> None:
    for call in TAKE_SCENARIO.values():
        with pytest.raises(InputError, match=_words(SCENARIO) + r"( for a)?; got a Result"):
            call(made["result"])


def test_compare_names_its_second_scenario() -> None:
    with pytest.raises(InputError, match=_words(f"{SCENARIO} for b; got 5")):
        simlab.compare(DUEL, 5, n=N)
    with pytest.raises(InputError, match=_words(f"{SCENARIO} for a; got None")):
        simlab.compare(None, DUEL, n=N)


CHANGES = (
    "changes: expected a mapping of NAME.FIELD to values, a 'NAME.FIELD=VALUE' text "
    "or a list of them"
)


@pytest.mark.parametrize(("bad", "got"), [(5, "5"), (2.5, "2.5"), (b"Defender.guard=2", "bytes")])
def test_changes_of_the_wrong_type_are_refused(bad: object, got: str) -> None:
    """``scn.with_(5)``, ``simlab.override(scn, 5)`` and ``compare(changes=5)`` raised
    ``TypeError: 'int' object is not iterable``."""
    duel = simlab.load(DUEL)
    calls = [
        lambda: duel.with_(bad),
        lambda: duel.with_(bad, max_rounds=5),  # a TypeError: 'int' object is not a mapping
        lambda: simlab.override(duel, bad),
        lambda: simlab.compare(duel, changes=bad, n=N),
    ]
    for call in calls:
        with pytest.raises(InputError, match=_words(f"{CHANGES}; got {got}")):
            call()


@pytest.mark.parametrize(("bad", "got"), [(None, "None"), (7, "7"), ({}, "a dict")])
def test_load_takes_only_a_path(bad: object, got: str) -> None:
    words = _words(f"expected the path of a scenario file; got {got}")
    with pytest.raises(InputError, match=words):
        simlab.load(bad)  # type: ignore[arg-type]


def test_run_scenarios_takes_paths_not_a_loaded_scenario() -> None:
    scn = simlab.load(QUICKSTART)
    for bad in (scn, None, 5, {"a": 1}):
        with pytest.raises(InputError, match=r"expected scenario paths .*; got"):
            simlab.run_scenarios(bad, n=N)  # type: ignore[arg-type]
    with pytest.raises(InputError, match=_words("scenario file or folder for items; got a")):
        simlab.run_scenarios([QUICKSTART, scn], n=N)  # type: ignore[list-item]


@pytest.mark.parametrize(
    ("text", "got"), [(None, "None"), (5, "5"), (b"rules: zones-3d6\n", "bytes")]
)
def test_loads_takes_only_text(text: object, got: str) -> None:
    with pytest.raises(InputError, match=_words(f"expected YAML text (a str); got {got}")):
        simlab.loads(text)  # type: ignore[arg-type]


def test_load_given_yaml_text_points_to_loads() -> None:
    """A scenario's text given to ``load`` was read as a file's name: the message repeated
    the whole text, then said no such file."""
    text = QUICKSTART.read_text()
    lines = len(text.splitlines())
    words = _words(f"expected the path of a scenario file; got YAML text (a str of {lines} "
                   "lines): load text with simlab.loads(text)")  # fmt: skip
    for call in (simlab.load, simlab.simulate):
        with pytest.raises(InputError, match=words):
            call(text)


def test_loads_given_a_path_points_to_load(monkeypatch: pytest.MonkeyPatch) -> None:
    """A file's path given to ``loads`` was parsed as YAML: ``expected a mapping of
    scenario keys; got text``."""
    monkeypatch.chdir(ROOT)
    path = "scenarios/shattered-spirits/quickstart.yaml"
    words = _words(f"expected YAML text (a str); got {path!r}, the path of a file: load a "
                   "file with simlab.load(path)")  # fmt: skip
    with pytest.raises(InputError, match=words):
        simlab.loads(path)


def test_one_line_text_no_path_can_be_is_read_as_yaml() -> None:
    """Asking whether one line of YAML named a file raised ``OSError: File name too long``
    for a scenario written in one line of flow style longer than a file name may be, and
    a NUL byte would raise a ValueError: each is read as the text it is."""
    attacks = ", ".join(f"x{k}: {{profile: [0, 0, 1, 2, 3, 4, 5, 7, 8, 9, {k}]}}"
                        for k in range(10))  # fmt: skip
    one_line = (f"{{scenario: long, rules: shattered-spirits, attacks: {{{attacks}}}, sides: "
                "{a: [{name: A, hp: 10, attacks: [x0]}], b: [{name: D, hp: 10, attacks: "
                "[x1]}]}}")  # fmt: skip
    assert len(one_line) > 255
    assert simlab.loads(one_line).scenario == "long"
    with pytest.raises(ScenarioError, match="expected printable text; got the character U"):
        simlab.loads("scenario: x\0")


# -- paths with a NUL byte -------------------------------------------------------------------


def test_a_scenario_path_with_a_nul_byte_is_refused() -> None:
    for call in (simlab.load, simlab.simulate, simlab.exact):
        with pytest.raises(ScenarioError, match="expected a readable YAML file; got a path "
                           "with a NUL byte"):  # fmt: skip
            call("x.yaml\0y")


def test_read_bounded_refuses_a_nul_byte_with_its_own_error() -> None:
    with pytest.raises(InputError, match="got a path with a NUL byte"):
        read_bounded("a\0b", 10, lambda got: InputError(f"expected a file; got {got}"))


def test_output_paths_with_a_nul_byte_are_refused(made: dict[str, Any], tmp_path: Path) -> None:
    bad = tmp_path / "out\0x"
    with pytest.raises(OutputError, match="expected a folder path; got a path with a NUL"):
        prepare_output(bad)
    with pytest.raises(OutputError, match="expected a file path; got a path with a NUL"):
        prepare_file(bad, "--baseline")
    with pytest.raises(InputError, match="folder path for out_dir; got a path with a NUL"):
        simlab.write_results(made["result"], bad)
    with pytest.raises(InputError, match="results file or its folder for path; got a path"):
        simlab.load_results(bad)
    assert list(tmp_path.iterdir()) == []


def test_empty_paths_are_refused_not_read_as_the_current_folder(
    made: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``Path("")`` is ``.``: an empty output path would have written into (or been
    refused as) the current folder, which nobody named."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(OutputError, match=r"^--out: expected a folder path; got an empty one$"):
        prepare_output("")
    with pytest.raises(OutputError, match=r"^--baseline: expected a file path; got an empty one$"):
        prepare_file("", "--baseline")
    with pytest.raises(InputError, match="results file or its folder for --baseline; got an empty"):
        simlab.load_results("", name="--baseline")
    with pytest.raises(InputError, match="expected a folder path for out_dir; got an empty path"):
        simlab.write_results(made["result"], "")
    for call in (simlab.load, simlab.simulate, simlab.exact):
        with pytest.raises(InputError, match="expected the path of a scenario file; got an "
                           "empty path ''"):  # fmt: skip
            call("")
    assert list(tmp_path.iterdir()) == []


# -- writers -----------------------------------------------------------------------------------

#: Each writer, the kind it writes and what makes one.
WRITERS = {
    "write_results": ("result", "a Result (simlab.simulate)"),
    "write_exact": ("exact", "an ExactResult (simlab.exact)"),
    "write_sweep": ("sweep", "a SweepResult (simlab.sweep)"),
    "write_compare": ("compare", "a Comparison (simlab.compare)"),
    "write_tune": ("tune", "a TuneResult (simlab.tune)"),
}


def _write(name: str, obj: object, out: object) -> object:
    return getattr(api, name)(obj, out)


@pytest.mark.parametrize("name", WRITERS)
def test_a_writer_refuses_what_it_does_not_write(
    name: str, made: dict[str, Any], tmp_path: Path
) -> None:
    """``write_tune(sweep_result, dir)`` wrote a tune.json from a SweepResult."""
    kind, expected = WRITERS[name]
    other = "sweep" if kind != "sweep" else "tune"
    wrong = [(None, "None"), (5, "5"), ("results", "'results'"),
             (made[other], f"a {type(made[other]).__name__}"),
             (made["run"], "a ScenarioRun")]  # fmt: skip
    for obj, got in wrong:
        with pytest.raises(InputError, match=_words(f"expected {expected}; got {got}")):
            _write(name, obj, tmp_path / "out")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", WRITERS)
@pytest.mark.parametrize(("out", "got"), [(None, "None"), (5, "5"), (b"out", "bytes")])
def test_a_writer_refuses_an_out_dir_that_is_not_a_path(
    name: str, out: object, got: str, made: dict[str, Any]
) -> None:
    with pytest.raises(InputError, match=_words(f"expected a folder path for out_dir; got {got}")):
        _write(name, made[WRITERS[name][0]], out)


#: Each public plot function, called with ``bad`` where its result goes.
PLOTS: dict[str, Callable[[Any], object]] = {
    "plot_damage_pmf": lambda bad: simlab.plot_damage_pmf(bad, "Kaito", "quick-jab"),
    "plot_damage_at_least": lambda bad: simlab.plot_damage_at_least(bad, "Kaito", "quick-jab"),
    "plot_time_to_down": lambda bad: simlab.plot_time_to_down(bad),
    "plot_survival": lambda bad: simlab.plot_survival(bad),
    "plot_hit_rates": lambda bad: simlab.plot_hit_rates(bad),
    "plot_win_rates": lambda bad: simlab.plot_win_rates(bad),
}


def test_every_public_plot_is_tested_here() -> None:
    from simlab import _PLOTS

    assert set(PLOTS) == set(_PLOTS)


@pytest.mark.parametrize("name", PLOTS)
def test_a_plot_refuses_what_it_does_not_draw(name: str, made: dict[str, Any]) -> None:
    """``plot_hit_rates(sweep_result)`` raised an AttributeError."""
    import matplotlib.pyplot as plt

    expected = "a Result (simlab.simulate) or a ScenarioRun (simlab.run_scenarios) for result"
    for obj, got in [(5, "5"), (made["sweep"], "a SweepResult"),
                     (made["compare"], "a Comparison")]:  # fmt: skip
        with pytest.raises(InputError, match=_words(f"expected {expected}; got {got}")):
            PLOTS[name](obj)
    plt.close("all")


@pytest.mark.parametrize("value", ["x", 1, None])
def test_a_pool_that_is_not_true_or_false_is_refused(value: object, made: dict[str, Any]) -> None:
    """``plot_damage_pmf(res, …, pool='x')`` was read as true, and drew silently."""
    import matplotlib.pyplot as plt

    from simlab import plots

    res = made["result"]
    for draw in (lambda: plots.plot_damage_pmf(res, "Kaito", "quick-jab", pool=value),
                 lambda: plots.plot_damage_at_least(res, "Kaito", "quick-jab", pool=value),
                 lambda: plots.plot_hit_rates(res, pool=value),
                 lambda: plots.damage_by_defender(res, "Kaito", "quick-jab", pool=value),
                 lambda: plots.pooled_damage_pmf(res, pool=value),
                 lambda: plots.pooled_hit_rates(res, pool=value)):  # fmt: skip
        with pytest.raises(InputError, match=_words(f"expected True or False for pool; got "
                                                    f"{value!r}")):  # fmt: skip
            draw()
    plt.close("all")


def test_numpy_bools_are_taken_as_true_or_false(made: dict[str, Any]) -> None:
    """``pool=np.True_`` was refused as "expected True or False for pool; got a bool";
    numpy's bools (what a comparison of arrays' items gives) are True or False, and a
    numpy array of them is not one."""
    import matplotlib.pyplot as plt
    import numpy as np

    from simlab import plots

    res = made["result"]
    pooled = plots.plot_damage_pmf(res, "Kaito", "quick-jab", pool=np.True_)
    assert pooled.equals(plots.plot_damage_pmf(res, "Kaito", "quick-jab", pool=True))
    assert plots.plot_hit_rates(res, pool=np.False_).equals(plots.plot_hit_rates(res, pool=False))
    with pytest.raises(InputError, match=_words("expected True or False for pool; got a ndarray")):
        plots.plot_hit_rates(res, pool=np.array([True, False]))
    plt.close("all")
    checked = simlab.simulate(QUICKSTART, n=N, check=np.bool_(False), trace=np.False_)
    assert checked.check is None


def test_plot_sweep_refuses_a_crit_rate_where_the_rules_have_no_crits() -> None:
    """zones-3d6 has no critical hits: ``plot_sweep(sw, "crit_rate")`` drew a flat line
    at 0, where ``tune`` and ``precision_on`` refuse the figure."""
    import matplotlib.pyplot as plt

    plate = simlab.load(ROOT / "scenarios/zones-3d6/longsword-vs-plate.yaml")
    sweep = simlab.sweep(plate, {"Plate Knight.hp": [16, 20]}, n=N, exact=False)
    fig, ax = plt.subplots()
    with pytest.raises(InputError) as err:
        simlab.plot_sweep(sweep, "crit_rate", ax=ax)
    drawn = ax.get_lines()
    plt.close(fig)
    assert str(err.value) == ("figure: expected a figure these rules have; got 'crit_rate': "
                              "they have no critical hits")  # fmt: skip
    assert drawn == []


def test_plot_sweep_refuses_what_it_does_not_draw_and_names_what_was_meant(
    made: dict[str, Any],
) -> None:
    """``plot_sweep(result)`` raised an AttributeError, a misspelt figure or name a
    ValueError, which ``except simlab.errors.InputError`` missed, with no did-you-mean."""
    import matplotlib.pyplot as plt

    for obj, got in [(made["result"], "a Result"), (made["compare"], "a Comparison"), (5, "5")]:
        with pytest.raises(InputError, match=_words(f"expected a SweepResult (simlab.sweep) "
                                                    f"for sweep; got {got}")):  # fmt: skip
            simlab.plot_sweep(obj)
    sweep = made["sweep"]
    misspelt = [
        (lambda: simlab.plot_sweep(sweep, "mean_damag"),
         "got 'mean_damag'; did you mean 'mean_damage'?"),
        (lambda: simlab.plot_sweep(sweep, "mean_damage", defender="Defendr"),
         "expected defender= one of Defender; got 'Defendr'; did you mean 'Defender'?"),
        (lambda: simlab.plot_sweep(sweep, "mean_damage", defendr="Defender"),
         "got defendr=; did you mean 'defender'?"),
        (lambda: simlab.plot_damage_pmf(made["result"], "Kaito", "quick-jib"),
         "never made; did you mean 'quick-jab'?"),
        (lambda: simlab.plot_damage_pmf(made["result"], "Kaitoo", "quick-jab"),
         "never made; did you mean 'Kaito'?"),
    ]  # fmt: skip
    for draw, words in misspelt:
        with pytest.raises(InputError, match=_words(words)):
            draw()
    plt.close("all")


@pytest.mark.parametrize(
    ("arguments", "words"),
    [({"before": "x"}, "an array of numbers over 0, 1, … for before; got 'x'"),
     ({"after": [0.1, "a"]}, "an array of numbers over 0, 1, … for after; got a list holding 'a'"),
     ({"after": [[0.1]]}, "for after; got a list holding a list"),
     ({"before": 0.5}, "for before; got 0.5"),
     ({"before": [], "after": []}, "for before; got an empty list"),  # matplotlib's NaN limits
     ({"after": ()}, "for after; got an empty tuple"),
     ({"ax": None}, "expected an Axes (matplotlib.pyplot.subplots) for ax; got None"),
     ({"bars": "yes"}, "expected True or False for bars; got 'yes'"),
     ({"where": "mid"}, "expected 'pre' or 'post' for where; got 'mid'")],
)  # fmt: skip
def test_plot_before_after_names_its_argument_of_the_wrong_type(
    arguments: dict[str, Any], words: str
) -> None:
    """``plot_before_after(ax, "x", [0.2], …)`` raised numpy's ``ValueError: could not
    convert string to float: 'x'`` from inside the plot."""
    import matplotlib.pyplot as plt

    from simlab import plots

    _, ax = plt.subplots()
    given = {"ax": ax, "before": [0.2, 0.8], "after": [0.5, 0.5], "xlabel": "damage",
             "ylabel": "p", **arguments}  # fmt: skip
    with pytest.raises(InputError, match=_words(words)):
        plots.plot_before_after(**given)
    plt.close("all")


def test_report_writers_take_only_scenario_runs(made: dict[str, Any], tmp_path: Path) -> None:
    runs = "expected a ScenarioRun or a list of them (simlab.run_scenarios, simlab.load_results)"
    alone = "a Result (simlab.write_results writes one alone)"
    for bad, got in [(None, "None"), (5, "5"), (made["result"], alone),
                     ([made["run"], made["result"]], "a list holding a Result"),
                     ([], "an empty list")]:  # fmt: skip
        with pytest.raises(InputError, match=_words(f"{runs}; got {got}")):
            simlab.write_report(bad, tmp_path / "report")  # type: ignore[arg-type]
        with pytest.raises(InputError, match=_words(f"{runs}; got {got}")):
            simlab.save_results(bad, tmp_path / "results.json")  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("path", "got"), [(None, "None"), (5, "5")])
def test_report_paths_that_are_not_paths_are_refused(
    path: object, got: str, made: dict[str, Any], tmp_path: Path
) -> None:
    run = made["run"]
    with pytest.raises(InputError, match=_words(f"expected a folder path for out_dir; got {got}")):
        simlab.write_report(run, path)  # type: ignore[arg-type]
    with pytest.raises(InputError, match=_words(f"expected a file path for path; got {got}")):
        simlab.save_results(run, path)  # type: ignore[arg-type]
    results = "expected the path of a results file or its folder"
    with pytest.raises(InputError, match=_words(f"{results} for path; got {got}")):
        simlab.load_results(path)  # type: ignore[arg-type]
    if path is not None:  # no baseline
        with pytest.raises(InputError, match=_words(f"{results} for baseline; got {got}")):
            simlab.write_report(run, tmp_path / "report", baseline=path)  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []


# -- callbacks and clients ---------------------------------------------------------------------


@pytest.mark.parametrize(("progress", "got"), [(5, "5"), ("bar", "'bar'"), ([], "a list")])
def test_a_progress_that_is_not_a_function_is_refused_first(
    progress: object, got: str, made: dict[str, Any], tmp_path: Path
) -> None:
    """In write_report it failed mid-render, a raw TypeError."""
    words = _words(f"expected a function for progress; got {got}")
    calls = [
        lambda: simlab.simulate(QUICKSTART, n=N, progress=progress),
        lambda: simlab.run_scenarios(QUICKSTART, n=N, progress=progress),
        lambda: simlab.write_report(made["run"], tmp_path / "report", progress=progress),
        lambda: simlab.sweep(DUEL, {"Defender.guard": [0, 1]}, n=N, progress=progress),
        lambda: simlab.compare(DUEL, changes={"Defender.guard": 2}, n=N, progress=progress),
        lambda: simlab.tune(DUEL, "Defender.hp=5:40", "median_time_to_down:Defender=5",
                            n=N, progress=progress),
    ]  # fmt: skip
    for call in calls:
        with pytest.raises(InputError, match=words):
            call()
    assert not (tmp_path / "report").exists()


def test_run_scenarios_tells_of_each_run_as_soon_as_it_has_run() -> None:
    """``on_run`` hears of each scenario's run before the next one starts (the command
    line, piped, says what each simulated as it goes, where it said them all at the end);
    one that is not a function is refused before anything runs."""
    heard: list[str] = []

    @contextlib.contextmanager
    def progress(total: int, what: str) -> Any:
        heard.append(f"start {Path(what).name}")
        yield lambda _done: None

    runs = simlab.run_scenarios(
        [QUICKSTART, DUEL],
        n=N,
        progress=progress,
        on_run=lambda run: heard.append(f"ran {run.scenario}"),
    )
    assert heard == ["start quickstart.yaml", "ran quickstart", "start ss-duel.yaml", "ran ss-duel"]
    assert [run.scenario for run in runs] == ["quickstart", "ss-duel"]
    with pytest.raises(InputError, match=_words("expected a function for on_run; got 5")):
        simlab.run_scenarios(QUICKSTART, n=N, on_run=5)


@pytest.mark.parametrize(("client", "got"), [(5, "5"), ("localhost:8786", "'localhost:8786'")])
def test_a_client_that_is_not_a_dask_client_is_refused(client: object, got: str) -> None:
    with pytest.raises(InputError, match=_words(f"expected a Dask distributed.Client for "
                                                f"client; got {got}")):  # fmt: skip
        simlab.simulate(QUICKSTART, n=N, client=client)


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_a_flag_that_is_not_true_or_false_is_refused(value: object) -> None:
    """``trace="yes"`` was read as true, and ``exact="no"`` as true too."""
    words = f"expected True or False for {{}}; got {value!r}"
    duel = simlab.load(DUEL)
    for flag in ("trace", "check"):
        with pytest.raises(InputError, match=_words(words.format(flag))):
            simlab.simulate(duel, n=100, **{flag: value})
    with pytest.raises(InputError, match=_words(words.format("exact"))):
        simlab.sweep(duel, {"Defender.guard": [0, 1]}, n=100, exact=value)  # type: ignore[arg-type]
    with pytest.raises(InputError, match=_words(words.format("exact"))):
        simlab.tune(duel, "Defender.hp=5:60", "down_rate:Defender=0.5", n=100,
                    exact=value)  # type: ignore[arg-type]  # fmt: skip
