"""``dir(simlab)`` shows the public API for tab completion, and importing stays light."""

from __future__ import annotations

import inspect
import re
import subprocess
import sys

import pytest

import simlab


def test_dir_lists_the_public_api() -> None:
    names = dir(simlab)
    assert set(simlab.__all__) <= set(names)
    for name in ("load", "simulate", "exact", "plots", "plot_damage_pmf", "write_report"):
        assert name in names
    assert names == sorted(names)
    assert {"Any", "annotations"}.isdisjoint(names)  # typing's and __future__'s, not simlab's


def test_every_listed_name_resolves() -> None:
    for name in simlab.__all__:
        assert getattr(simlab, name) is not None, name


def test_dir_loads_nothing_heavy() -> None:
    heavy_modules = "('numba', 'pandas', 'matplotlib')"
    code = ("import sys, simlab; names = dir(simlab); "
            f"print(len(names), *(m in sys.modules for m in {heavy_modules}))")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)  # fmt: skip
    count, *heavy = done.stdout.split()
    assert int(count) >= len(simlab.__all__)
    assert heavy == ["False", "False", "False"]


def test_the_exact_engine_module_is_found_without_importing_it_first() -> None:
    """``simlab.exact.engine``, which the package's docstring names, raised
    AttributeError in a fresh interpreter until something had imported it."""
    code = ("import simlab\n"
            "print(simlab.exact.engine.ExactResult.__name__, simlab.exact.zones_3d6.__name__)\n"
            "try:\n    simlab.exact.nothing\n"
            "except AttributeError as err:\n    print(err)\n")  # fmt: skip
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)  # fmt: skip
    assert done.stdout.splitlines() == [
        "ExactResult simlab.exact.zones_3d6",
        "module 'simlab.exact' has no attribute 'nothing'",
    ]


def _documented(doc: str, section: str) -> str:
    """The text of a numpy-style ``section`` of ``doc`` ("" when it has none)."""
    match = re.search(rf"^{section}\n-+\n(.*?)(?=^\w[\w ]*\n-+\n|\Z)", doc, re.S | re.M)
    return match.group(1) if match else ""


@pytest.mark.parametrize("name", [*simlab._API, *simlab._PLOTS, *simlab._TUNING_PLOTS])
def test_every_api_function_documents_its_parameters_and_return(name: str) -> None:
    """``help(simlab.NAME)`` names every argument under Parameters and says what comes
    back under Returns, numpy style (``loads``, ``override``, the writers and others had
    prose alone, or no Returns; the plots, a Returns alone or neither)."""
    function = getattr(simlab, name)
    doc = inspect.getdoc(function) or ""
    listed = _documented(doc, "Parameters")
    names = re.findall(r"^([*\w][*\w, ]*?)(?: :|$)", listed, re.M)  # **on : str too
    given = {part.strip(" *") for line in names for part in line.split(",")}
    missing = [p for p in inspect.signature(function).parameters if p not in given]
    assert missing == [], f"{name}: Parameters does not name {missing}"
    assert _documented(doc, "Returns").strip(), f"{name}: no Returns section"


def test_simlab_exact_shows_the_signature_it_is_called_with() -> None:
    """``simlab.exact?`` in a notebook showed ``(*args, **kwargs)``, the callable
    package's own, and ``help(simlab.exact)`` began with the contract for a rule
    system's exact module: neither said how to call it."""
    from simlab.exact.engine import exact

    assert inspect.signature(simlab.exact) == inspect.signature(exact)
    assert list(inspect.signature(simlab.exact).parameters) == ["scenario"]
    doc = (simlab.exact.__doc__ or "").splitlines()
    assert doc[2].startswith("Call it as ``simlab.exact(scenario)``")


def test_an_exact_table_without_rows_keeps_the_dtypes_it_has_with_rows() -> None:
    """The quickstart, no duel, gave ``time_to_down()`` a float ``round`` (an int in a
    duel's) and ``caveats()`` object columns (text in a table with rows)."""
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    fight = simlab.exact(root / "scenarios/shattered-spirits/quickstart.yaml")
    duel = simlab.exact(root / "scenarios/benchmarks/ss-duel.yaml")
    monsters = simlab.exact(root / "scenarios/glitters-d20/party-vs-monsters.yaml")
    assert fight.time_to_down().empty and not duel.time_to_down().empty
    assert fight.caveats().empty and not monsters.caveats().empty
    assert dict(fight.time_to_down().dtypes) == dict(duel.time_to_down().dtypes)
    assert dict(fight.caveats().dtypes) == dict(monsters.caveats().dtypes)


def test_a_check_that_compares_nothing_says_why() -> None:
    """``simulate(..., check=True)`` of a scenario the exact engine refuses gave an empty
    table without a word, where ``simlab run --check`` prints ``not checked: …``."""
    import warnings
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    with pytest.warns(UserWarning) as told:
        res = simlab.simulate(root / "scenarios/shattered-spirits/spirits-2v3.yaml", n=2_000,
                              check=True)  # fmt: skip
    assert res.check is not None and res.check.empty
    [said] = [str(w.message) for w in told]
    assert said.startswith("check: no figure could be checked against an exact answer; "
                           "cannot solve scenario 'spirits-2v3' exactly: spirits: ")  # fmt: skip
    assert "simlab run" not in said
    assert told[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        checked = simlab.simulate(root / "scenarios/shattered-spirits/quickstart.yaml", n=2_000,
                                  check=True)  # fmt: skip
    assert checked.check is not None and len(checked.check) > 0


def test_every_simlab_function_a_message_names_is_there() -> None:
    """``simlab.check(5)`` said to pass ``a ScenarioRun (simlab.run_scenario)``, a name
    ``simlab`` did not have: AttributeError."""
    with pytest.raises(simlab.errors.InputError) as refused:
        simlab.check(5)
    named = re.findall(r"simlab\.(\w+)", str(refused.value))
    assert "run_scenario" in named
    for name in named:
        assert callable(getattr(simlab, name)), name
    assert "run_scenario" in dir(simlab)
