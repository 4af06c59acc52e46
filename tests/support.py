"""Helpers shared by the test modules of every rule system.

Imported as ``tests.support``: pytest puts the repository root on ``sys.path``
(``pythonpath = ["."]`` in pyproject.toml).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import re
import subprocess
import sys
from collections import namedtuple
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner, Result
from scipy import stats

import simlab
from simlab.cli import main
from simlab.engine.rng import key_from_seed
from simlab.engine.runner import ONE_KERNEL_VARIABLE
from simlab.engine.tallies import collapse, new_tallies
from simlab.errors import ScenarioError
from simlab.rules import rule_module

# ---------------------------------------------------------------------------------------
# Statistics
# ---------------------------------------------------------------------------------------


def chi_square_p(observed: np.ndarray, expected_prob: np.ndarray) -> float:
    """p-value of a chi-square goodness-of-fit test, cells with expected < 5 merged.

    Cells are merged in order of the outcome (adjacent damages or rounds) until each
    holds an expected count of at least 5; a remainder below 5 joins the last cell.
    Where that leaves one cell (all but one outcome expected fewer than 5 times in all),
    the p-value is the exact binomial test of the count outside the likeliest outcome
    (:func:`_rest_p`): one cell has nothing to compare. Outcomes of probability 0 must
    never be observed (checked by the caller).
    """
    n = observed.sum()
    expected = expected_prob * n
    obs_cells, exp_cells = [], []
    o_acc = e_acc = 0.0
    for o, e in zip(observed, expected, strict=True):
        o_acc += o
        e_acc += e
        if e_acc >= 5:
            obs_cells.append(o_acc)
            exp_cells.append(e_acc)
            o_acc = e_acc = 0.0
    if e_acc > 0 or o_acc > 0:
        if exp_cells:
            obs_cells[-1] += o_acc
            exp_cells[-1] += e_acc
        else:
            obs_cells.append(o_acc)
            exp_cells.append(e_acc)
    if len(obs_cells) < 2:
        return _rest_p(observed, expected_prob)
    exp_arr = np.asarray(exp_cells)
    exp_arr *= n / exp_arr.sum()  # renormalise float rounding so the totals agree
    return float(stats.chisquare(np.asarray(obs_cells), exp_arr).pvalue)


def _rest_p(observed: np.ndarray, expected_prob: np.ndarray) -> float:
    """Two-sided exact binomial p-value of the count outside the likeliest outcome,
    against the probability of the other outcomes (1 where the pmf has no other)."""
    top = int(np.argmax(expected_prob))
    rest = float(np.delete(expected_prob, top).sum())
    total = round(float(observed.sum()))
    seen = total - round(float(observed[top]))
    if rest <= 0:
        return 1.0 if seen == 0 else 0.0
    assert total > 0, "nothing observed: a pmf of several outcomes cannot be compared"
    return float(stats.binomtest(seen, total, min(rest, 1.0)).pvalue)


K_SIGMA = 4.5  # how far, in standard errors, a simulated rate may be from the exact one


def within(successes: int, attempts: int, p: float, k_sigma: float = K_SIGMA) -> bool:
    """Whether the observed rate is within ``k_sigma`` binomial standard errors of ``p``."""
    sigma = np.sqrt(p * (1 - p) / attempts)
    return bool(abs(successes / attempts - p) <= k_sigma * sigma)


def assert_same_tallies(a: Any, b: Any, encounters: int) -> None:
    """Two runs' tallies equal array by array (the array named on a mismatch), the first
    of ``encounters`` encounters that made attacks: two runs that played nothing would
    be equal too."""
    played = int(np.sum(a.winner))  # each encounter won by a side or drawn
    assert played == encounters and int(np.sum(a.attempts)) > 0, (played, encounters)
    for name, x, y in zip(a._fields, a, b, strict=True):
        assert np.array_equal(x, y), name


# ---------------------------------------------------------------------------------------
# Traces and the combatants they name
# ---------------------------------------------------------------------------------------


def simulate_traced(name: str, text: str, n: int, seed: int) -> tuple[Any, pd.DataFrame]:
    """The scenario ``text`` (file name ``name.yaml``) and the trace of ``n`` encounters."""
    scn = simlab.loads(text, f"{name}.yaml")
    res = simlab.simulate(scn, n=n, seed=seed, trace=True)
    assert res.trace is not None and len(res.trace) > 0
    return scn, res.trace


def rows_of(frame: pd.DataFrame) -> list[Any]:
    """``list(frame.itertuples())``, faster for the many small frames a replay reads.

    ``itertuples`` makes a new named-tuple class and reads every column through
    ``iloc`` at each call, 7 ms for one encounter's rows of a trace: most of a replay
    test's time. The rows here are the same tuples (``Index`` first, then the columns).
    """
    record = _record_type(tuple(frame.columns))
    columns = [frame.index.tolist(), *(frame[c].tolist() for c in frame.columns)]
    return [record._make(values) for values in zip(*columns, strict=True)]


def first_turns(records: list[Any]) -> list[Any]:
    """Each attacker's first row of one encounter's ``records``, in turn order, having
    checked that all of an attacker's rows have one initiative and one turn (both are
    fixed for the encounter)."""
    first: dict[str, Any] = {}
    for row in records:
        seen = first.setdefault(row.attacker, row)
        fixed = (row.initiative, row.turn) == (seen.initiative, seen.turn)
        assert fixed, f"initiative and position are fixed for the encounter: {row}"
    return sorted(first.values(), key=lambda row: row.turn)


@functools.cache
def _record_type(columns: tuple[str, ...]) -> Any:
    """The named tuple of a row with ``columns`` (as ``itertuples`` names it)."""
    return namedtuple("Pandas", ["Index", *columns], rename=True)


def combatants(scn: Any) -> Iterator[tuple[int, str, Any]]:
    """(side index, name, scenario entry) of every combatant, copies expanded and
    numbered ("Goblin 1", "Goblin 2") as in the trace."""
    for s, members in enumerate(scn.sides.values()):
        for m in members:
            for k in range(m.count):
                yield s, (m.name if m.count == 1 else f"{m.name} {k + 1}"), m


# ---------------------------------------------------------------------------------------
# Block kernels run directly
# ---------------------------------------------------------------------------------------


def block_tallies(job: Any, kernel: Any, chunks: int) -> Any:
    """The tallies (chunks summed) of all of ``job``'s encounters played untraced by the
    block kernel ``kernel`` (a rule system's ``run_block`` or one of its duel kernels),
    adding into ``chunks`` chunks."""
    k0, k1 = key_from_seed(job.seed)
    tallies = new_tallies(job.layout, chunks)
    trace = np.zeros((1, rule_module(job.rules, "kernels").N_TRACE), dtype=np.int64)
    n_trace = np.zeros(1, dtype=np.int64)
    kernel(job.params, k0, k1, 0, job.n, job.n, tallies, trace, n_trace)
    return collapse(tallies)


# ---------------------------------------------------------------------------------------
# Scenario errors
# ---------------------------------------------------------------------------------------


def errors_of(text: str) -> list[str]:
    """The located problems of a scenario ``text`` (file ``s.yaml``) that must not load."""
    with pytest.raises(ScenarioError) as caught:
        simlab.loads(text, "s.yaml")
    return [str(p) for p in caught.value.problems]


def slipped(text: str, old: str, slip: str) -> tuple[str, str]:
    """``text`` with its first ``old`` written as ``slip``, and where the '|' in ``slip``
    stood (``line:col``, 1-based), which the text returned is without: a slip and the
    place its message must name, written together."""
    assert old in text
    marked = text.replace(old, slip, 1)
    before = marked[: marked.index("|")]
    line, col = before.count("\n") + 1, len(before) - before.rfind("\n")
    return marked.replace("|", "", 1), f"{line}:{col}"


def assert_one_error(text: str, line: int, words: list[str]) -> None:
    """``text`` has exactly one problem, at ``s.yaml:line``, whose message has ``words``."""
    problems = errors_of(text)
    assert len(problems) == 1, problems
    assert problems[0].startswith(f"s.yaml:{line}:"), problems
    for word in words:
        assert word in problems[0], problems


def validate_file(path: Path, text: str) -> Result:
    """Write ``text`` to ``path`` and run ``simlab validate`` on it."""
    path.write_text(text)
    return CliRunner().invoke(main, ["validate", str(path)])


def broken_names(text: str, names: Iterable[str]) -> list[str]:
    """Where printed ``text`` breaks one of ``names`` at a space inside it: the first
    words end a table cell (two spaces or the line's end after them) and the rest starts
    the next line in the same column (``Raider`` / ``Chief``, read as a row of its own);
    or a line ends with them and the next one starts with the rest (``varied: Plate`` /
    ``Knight.hp``). Each place as the two lines."""
    lines = text.splitlines()
    found = []
    for name in names:
        words = name.split(" ")
        for i in range(1, len(words)):
            head, tail = re.escape(" ".join(words[:i])), re.escape(" ".join(words[i:]))
            for line, below in itertools.pairwise(lines):
                for m in re.finditer(rf"(?<!\S){head}(?= {{2,}}| *$)", line):
                    in_column = re.match(rf"{tail}(?!\w)", below[m.start() :])
                    wrapped = not line[m.end() :].strip() and re.match(rf" *{tail}(?!\w)", below)
                    if in_column or wrapped:
                        found.append(f"{line.rstrip()!r} / {below.rstrip()!r}")
    return found


def column_cells(text: str, header: str, row: str) -> list[str]:
    """The cells of the right-aligned column ``header`` in every table of printed
    ``text`` that has one, top to bottom: the rightmost ``header`` on the last line of
    a table's heading (``current`` of ``baseline →`` / ``current``; ``mean`` of ``mean
    damage`` and ``exact`` / ``mean`` is the exact mean's) heads it. A table's lines are
    those under its rule as wide as it (the first line that is not, a note, ends it); on
    each that matches the pattern ``row`` (a row's first line), its cell is the word
    that ends where the header ends, "" where none does. An empty list where no table
    has the column: it was cut at the terminal's edge."""
    lines = text.splitlines()
    rules = [k for k, line in enumerate(lines) if set(line.strip()) == {"─"}]
    cells = []
    for k, next_rule in zip(rules, [*rules[1:], len(lines)], strict=True):
        headings = list(re.finditer(rf"(?<!\S){re.escape(header)}(?!\S)", lines[k - 1]))
        if not headings:
            continue
        end = headings[-1].end()
        for below in lines[k + 1 : next_rule]:
            if len(below) != len(lines[k]):
                break
            if re.match(row, below):
                word = re.search(r"(\S+)$", below[:end])
                cells.append(word[1] if word and below[end : end + 1] in ("", " ") else "")
    return cells


# ---------------------------------------------------------------------------------------
# Small scenarios
# ---------------------------------------------------------------------------------------

#: A shattered-spirits scenario of which nothing has an exact answer: each defender
#: reacts, and both sides attack (no duel).
UNSOLVABLE = """\
scenario: unsolvable
rules: shattered-spirits
max_rounds: 5
attacks:
  hit: {profile: [5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5]}
sides:
  a: [{name: A, hp: 10, attacks: [hit], tokens: {grit: 2},
       react: {block: {when_damage_at_least: 1}}}]
  b: [{name: B, hp: 10, attacks: [hit], tokens: {reflex: 2},
       react: {evade: {when_damage_at_least: 1}}}]
"""

#: opposed-tiers: a hidden archer against a frail raider, who falls in the surprise round
#: (round 0 of the tallies, docs/rules/opposed-tiers.md) in most encounters.
AMBUSH = """
scenario: ambush
rules: opposed-tiers
encounters: 2000
seed: 4
max_rounds: 10
attacks: {shortbow: {ranged: true}, club: {}}
sides:
  party:
    - {name: Scout, hp: 16, tier: novice, weapon_sl: 2, defense_sl: 1, reflex: 3,
       hidden: true, attacks: [shortbow]}
  raiders:
    - {name: Rat, hp: 6, tier: novice, attacks: [club]}
"""


#: The smallest duel of each rule system but draft1 (one attack, attacker A and
#: defender B at 20 HP): scenarios the input-error tests change one key or value of.
GLITTERS_DUEL = """\
scenario: t
rules: glitters-d20
attacks:
  mace: {damage: 1d6, type: bludgeoning}
sides:
  a: [{name: A, hp: 20, attacks: [mace]}]
  b: [{name: B, hp: 20, dc: 10}]
"""
ZONES_DUEL = """\
scenario: t
rules: zones-3d6
attacks:
  spear: {damage: 1d6}
sides:
  a: [{name: A, hp: 20, attacks: [spear]}]
  b: [{name: B, hp: 20}]
"""
TIERS_DUEL = """\
scenario: t
rules: opposed-tiers
attacks:
  sword: {}
sides:
  a: [{name: A, hp: 20, attacks: [sword]}]
  b: [{name: B, hp: 20}]
"""
SPIRITS_DUEL = """\
scenario: t
rules: shattered-spirits
attacks:
  blade: {profile: [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]}
sides:
  a: [{name: A, hp: 20, attacks: [blade]}]
  b: [{name: B, hp: 20}]
"""


@contextlib.contextmanager
def terminal_console(console: Any, width: int) -> Iterator[Any]:
    """Make ``console`` the terminal's (``report.terminal.console``) with ``COLUMNS`` set
    to ``width``, and give both back as they were afterwards."""
    import os

    from simlab.report import terminal

    saved, columns = terminal.console, os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(width)
    terminal.console = console() if callable(console) else console
    try:
        yield terminal.console
    finally:
        terminal.console = saved
        if columns is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = columns


def piped_at(monkeypatch: pytest.MonkeyPatch, width: int, *args: str) -> str:
    """The output of ``simlab ARGS``, which must succeed, piped at ``COLUMNS=width`` (the
    terminal's console made again under it)."""
    from simlab.report import terminal

    monkeypatch.setenv("COLUMNS", str(width))
    monkeypatch.setattr(terminal, "console", terminal._make_console())
    done = CliRunner().invoke(main, list(args))
    assert done.exit_code == 0, done.output
    return str(done.output)


def printed_at(print_: Callable[[], Any], width: int = 80) -> str:
    """What ``print_`` prints on the terminal's console (``report.terminal.console``) as
    on a terminal of ``width`` columns (``COLUMNS`` set), as recorded text."""
    from rich.console import Console

    with terminal_console(Console(width=width, record=True, force_terminal=False), width) as c:
        print_()
        return str(c.export_text())


# ---------------------------------------------------------------------------------------
# Kernels' types
# ---------------------------------------------------------------------------------------

_FLOAT_VARIABLES = """
import gc, glob, sys
import numba
from numba.core import caching
import simlab
# Every kernel compiled afresh (only a fresh compile keeps the types numba inferred) and
# saved to the cache as usual, where the tests that follow load it.
caching.Cache._load_overload = lambda self, sig, target_context: None
for path in sorted(glob.glob("scenarios/**/*.yaml", recursive=True)):
    scenario = simlab.load(path)
    if scenario.rules in sys.argv[1:]:
        simlab.simulate(scenario, n=50)
        simlab.simulate(scenario, n=50, trace=True)
kernels = untyped = variables = 0
for d in gc.get_objects():
    if not isinstance(d, numba.core.dispatcher.Dispatcher):
        continue
    if d.py_func.__module__.startswith("simlab"):
        for result in d.overloads.values():
            kernels += 1
            if result.type_annotation is None:
                untyped += 1
                continue
            for name, ty in result.type_annotation.typemap.items():
                variables += 1
                if isinstance(ty, numba.types.Float):
                    print("FLOAT", d.py_func.__qualname__, name, ty)
print("KERNELS", kernels, "UNTYPED", untyped, "VARIABLES", variables)
"""


def assert_no_float_variable(systems: list[str]) -> None:
    """Assert that no kernel the examples of rule systems ``systems`` take, traced or
    not, has a float variable.

    Kernels compile without numba's SSA reconstruction (``simlab/engine/jit.py``,
    ``compile_without_ssa``): a variable that takes a signed integer in one branch and
    an unsigned one in another would become a float, and a tally could then differ from
    the plain Python's. Every example of ``systems`` is run, traced and untraced, in a
    process of its own that compiles every kernel afresh (none loaded from the cache,
    every one still saved to it), and every variable's type is read.
    """
    env = {**os.environ}
    env.pop(ONE_KERNEL_VARIABLE, None)  # every kernel the examples take, not one a system
    out = subprocess.run([sys.executable, "-c", _FLOAT_VARIABLES, *systems], env=env,
                         check=True, capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[1]).stdout  # fmt: skip
    assert "FLOAT" not in out, out
    kernels, untyped, variables = (int(word) for word in out.split()[-5::2])
    assert untyped == 0 and kernels >= 10 * len(systems) and variables >= 5_000 * len(systems), out


# ---------------------------------------------------------------------------------------
# Processes
# ---------------------------------------------------------------------------------------

#: ``python -m simlab`` (arguments to follow) with Ctrl-C's default action, as on a
#: terminal, for the tests that press Ctrl-C. A process started with SIGINT ignored (a
#: job that a non-interactive shell put in the background, ``( … & )``) passes that on
#: to its children, and Python then leaves Ctrl-C ignored: the Ctrl-C did nothing, and
#: both Ctrl-C tests of the slow tier failed in such a CI run.
SIMLAB_WITH_CTRL_C = [
    sys.executable, "-c",
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.executable, [sys.executable, '-m', 'simlab', *sys.argv[1:]])",
]  # fmt: skip
