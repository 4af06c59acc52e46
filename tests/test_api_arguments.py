"""The Python API's counts: a whole number as a notebook writes it (``n=1e6``), and a
clear error, before anything runs, for anything else (``simlab.limits.whole_number_in``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import simlab
from simlab.engine.runner import max_threads
from simlab.errors import InputError
from simlab.limits import whole_number_in

ROOT = Path(__file__).resolve().parents[1]
QUICKSTART = ROOT / "scenarios/shattered-spirits/quickstart.yaml"


@pytest.mark.parametrize(
    ("value", "number"),
    [(7, 7), (np.int64(7), 7), (7.0, 7), (2e5, 200_000), (np.float64(3e2), 300), (10, 10)],
)
def test_a_whole_number_is_taken_as_an_int(value: object, number: int) -> None:
    taken = whole_number_in(value, "encounters", 1, 10**6)
    assert taken == number
    assert type(taken) is int


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (2.5, "expected encounters as a whole number; got 2.5"),
        (True, "expected encounters as a whole number; got True"),
        ("100", "expected encounters as a whole number; got '100'"),
        (float("nan"), "as a whole number; got nan"),
        (float("inf"), "as a whole number; got inf"),
        (None, "as a whole number; got None"),
        (0, "expected encounters from 1 to 1,000,000; got 0"),
        (-3, "from 1 to 1,000,000; got -3"),
        (1e7, "from 1 to 1,000,000; got 10000000.0"),
    ],
)
def test_anything_else_is_an_input_error(value: object, words: str) -> None:
    with pytest.raises(InputError, match=words.replace("(", r"\(").replace(")", r"\)")):
        whole_number_in(value, "encounters", 1, 10**6)


def test_simulate_takes_a_count_written_as_a_float() -> None:
    scn = simlab.load(QUICKSTART)
    as_float = simlab.simulate(scn, n=2e3, block_size=5e2, threads=1.0)
    as_int = simlab.simulate(scn, n=2000, block_size=500, threads=1)
    assert as_float.encounters == 2000
    for name, counts in as_int.tallies._asdict().items():
        assert np.array_equal(getattr(as_float.tallies, name), counts), name


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ({"n": 2.5}, "expected encounters as a whole number; got 2.5"),
        ({"n": True}, "expected encounters as a whole number; got True"),
        ({"n": 0}, "expected encounters from 1 to"),
        ({"block_size": -3}, "expected block_size from 1 to"),  # it once looped forever
        ({"block_size": 0}, "expected block_size from 1 to"),
        ({"block_size": 2.5}, "expected block_size as a whole number; got 2.5"),
        ({"threads": 0}, "expected threads from 1 to"),
        ({"threads": 1.5}, "expected threads as a whole number; got 1.5"),
    ],
)
def test_simulate_refuses_other_counts_first(arguments: dict[str, Any], words: str) -> None:
    with pytest.raises(InputError, match=words):
        simlab.simulate(QUICKSTART, **{"n": 100, **arguments})


def test_simulate_refuses_more_threads_than_the_machine_gives() -> None:
    top = max_threads()
    with pytest.raises(InputError, match=f"expected threads from 1 to {top}; got {top + 1}"):
        simlab.simulate(QUICKSTART, n=100, threads=top + 1)


def test_a_numpy_seed_and_count_are_written_as_python_ints(tmp_path: Path) -> None:
    """numpy numbers from a notebook ran, and then writing the results failed: JSON
    takes no ``np.int64``."""
    import json

    res = simlab.simulate(QUICKSTART, n=np.int64(300), seed=np.int64(3))
    assert type(res.seed) is int and type(res.encounters) is int
    simlab.write_results(res, tmp_path / "out")
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert (summary["seed"], summary["encounters"]) == (3, 300)
    assert simlab.simulate(QUICKSTART, n=300, seed=3).tallies.attempts.tolist() == (
        res.tallies.attempts.tolist()
    )


def test_a_seed_written_as_a_float_is_taken_as_a_count_is() -> None:
    """``seed=1e3`` was refused with "expected a seed between 0 and 2**64-1; got 1000.0",
    as if out of range, while ``n=1e3`` was taken; a fraction says what is wrong."""
    as_float = simlab.simulate(QUICKSTART, n=300, seed=1e3)
    assert type(as_float.seed) is int and as_float.seed == 1000
    as_int = simlab.simulate(QUICKSTART, n=300, seed=1000)
    for name, counts in as_int.tallies._asdict().items():
        assert np.array_equal(getattr(as_float.tallies, name), counts), name
    with pytest.raises(InputError, match=r"^expected a seed as a whole number; got 2\.5$"):
        simlab.simulate(QUICKSTART, n=300, seed=2.5)


@pytest.mark.slow  # runs a sweep, a comparison and a tuning twice
def test_sweeps_comparisons_and_tunings_take_numpy_counts_and_seeds(tmp_path: Path) -> None:
    """Each is written (JSON) after running on numpy's numbers, as on Python's."""
    duel = ROOT / "scenarios/benchmarks/ss-duel.yaml"
    n, seed = np.int64(400), np.int64(4)
    sw = simlab.sweep(duel, {"Defender.guard": np.arange(2)}, n=n, seed=seed, exact=False)
    ab = simlab.compare(duel, changes={"Defender.guard": np.int64(2)}, n=n, seed=seed)
    found = simlab.tune(duel, "Defender.hp=5:40", "median_time_to_down:Defender=5", n=n, seed=seed)
    for made in (sw, ab.a, found):
        assert (type(made.encounters), type(made.seed)) == (int, int)
    simlab.write_sweep(sw, tmp_path / "sweep")
    simlab.write_compare(ab, tmp_path / "compare")
    simlab.write_tune(found, tmp_path / "tune")


def test_a_scenario_is_changed_by_with_only() -> None:
    """pydantic's ``model_copy(update=...)`` skipped validation (``max_rounds: 0`` ran),
    and an assignment raised pydantic's own error."""
    from simlab.errors import InputError

    scn = simlab.load(QUICKSTART)
    with pytest.raises(InputError, match=r"expected scn.with_\(\{...\}\) or simlab.override"):
        scn.model_copy(update={"max_rounds": 0})
    with pytest.raises(InputError, match="got an assignment to 'max_rounds'"):
        scn.max_rounds = 5  # type: ignore[misc]
    assert scn.model_copy().max_rounds == scn.max_rounds


def test_progress_is_told_increments_and_says_so() -> None:
    """``progress=`` receives the encounters played since its last call, which the
    command line's bar adds up (``advance=``); its docs said "the number of encounters
    finished", which a callback read as a running total (``bar.n = k``)."""
    from simlab.tuning import compare, sweep, tune

    duel = ROOT / "scenarios/benchmarks/ss-duel.yaml"
    told: dict[str, list[int]] = {k: [] for k in ("simulate", "sweep", "compare", "tune")}
    simlab.simulate(duel, n=3000, threads=1, block_size=1000, progress=told["simulate"].append)
    simlab.sweep(duel, {"Defender.guard": [0, 1]}, n=500, exact=False,
                 progress=told["sweep"].append)  # fmt: skip
    simlab.compare(duel, changes={"Defender.guard": 2}, n=500, progress=told["compare"].append)
    found = simlab.tune(duel, "Defender.hp=5:40", "down_rate:Defender=0.5", n=500, exact=False,
                        progress=told["tune"].append)  # fmt: skip
    simulated = sum(e.encounters or 0 for e in found.evaluations)
    assert [sum(calls) for calls in told.values()] == [3000, 1000, 1000, simulated]
    assert max(told["simulate"]) <= 1000 and len(told["compare"]) == 2 * 32
    for function in (simlab.simulate, sweep.sweep, compare.compare, tune.tune):
        entry = (function.__doc__ or "").split("progress : callable, optional")[1]
        assert "since its last call" in " ".join(entry.split()[:16]), function.__name__
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert "is called with the encounters played since its last call, an increment" in readme


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"Kaito.hp": True}, "override Kaito.hp: expected an integer; got True"),
        ({"Kaito.hp": False}, "override Kaito.hp: expected an integer; got False"),
        ({"Kaito.hp": None}, "override Kaito.hp: expected an integer; got None"),
        ("Kaito.hp=true", "override Kaito.hp=true: expected an integer; got true"),
        ({"Kaito.hp": "true"}, "override Kaito.hp: expected an integer; got 'true'"),
    ],
)
def test_a_refused_override_value_is_said_as_the_caller_wrote_it(changes: Any, words: str) -> None:
    """``with_({"Kaito.hp": True})`` said "got true", YAML's spelling, to a caller who
    wrote Python's ``True`` (and "got an empty value" for ``None``); the text
    ``"Kaito.hp=true"``, read as YAML, keeps it."""
    scenario = simlab.load(QUICKSTART)
    with pytest.raises(InputError) as refused:
        scenario.with_(changes)
    assert str(refused.value).endswith(words)
