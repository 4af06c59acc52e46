"""A run that compiles kernels says so, once; a warm run says nothing
(``simlab/engine/compiling.py``).

numba compiles a rule system's kernels in silence on its first run (5–15 s), which in
a notebook looks like a hang. The kernel cache tells the run's listener when a kernel is
about to be compiled; the Python API listens when its caller shows no progress of its
own, and says it on the ``simlab`` logger, which prints on standard error. A fresh
``NUMBA_CACHE_DIR`` makes a real compile: of one tiny kernel here, of a rule system's in
the slow test.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import numba
import pytest

import simlab
from simlab.engine import compiling, jit, runner

ROOT = Path(__file__).resolve().parents[2]
DUEL = ROOT / "scenarios/benchmarks/ss-duel.yaml"

_TINY = """
import sys
sys.path.insert(0, sys.argv[1])
from simlab.engine import compiling
import tiny_kernels
with compiling.listening(compiling.say_compiling, "tiny"):
    print("TWICE", tiny_kernels.twice(21), tiny_kernels.thrice(1))
"""


def run_python(code: str, cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter whose kernels are cached in ``cache``."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    return subprocess.run([sys.executable, "-c", code, *args], env=env, check=True,
                          capture_output=True, text=True, cwd=ROOT, timeout=600)  # fmt: skip


def test_a_first_compile_is_said_once_on_stderr_and_a_cached_run_says_nothing(tmp_path):
    if not jit.LIGHT_CACHE_LOADS:
        pytest.skip(f"numba {numba.__version__}: no cache-miss hook to tell a compile from")
    (tmp_path / "tiny_kernels.py").write_text(
        "from simlab.engine import jit\n\n\n@jit.kernel\ndef twice(x):\n    return 2 * x\n"
        "\n\n@jit.kernel\ndef thrice(x):\n    return 3 * x\n"
    )
    first = run_python(_TINY, tmp_path / "cache", str(tmp_path))
    again = run_python(_TINY, tmp_path / "cache", str(tmp_path))
    assert "TWICE 42 3" in first.stdout and "TWICE 42 3" in again.stdout
    assert first.stderr.splitlines() == [compiling.compiling_message("tiny")]  # two compiles
    assert again.stderr == ""


@pytest.mark.slow  # a rule system's first compile: 5–15 s
def test_a_first_simulate_says_it_compiles_and_the_next_one_does_not(tmp_path):
    if not jit.LIGHT_CACHE_LOADS:
        pytest.skip(f"numba {numba.__version__}: no cache-miss hook to tell a compile from")
    code = f"import simlab; simlab.simulate({str(DUEL)!r}, n=100)"
    first = run_python(code, tmp_path)
    assert first.stderr.splitlines() == [compiling.compiling_message("shattered-spirits")]
    assert run_python(code, tmp_path).stderr == ""


@pytest.fixture
def compile_in_each_run(monkeypatch):
    """Every range of encounters played acts as a cold cache does: it tells the run's
    listener that a kernel is about to be compiled (twice: a run compiles several)."""
    play = runner.run_range

    def run_range(*args, **kwargs):
        compiling.compile_starting()
        compiling.compile_starting()
        return play(*args, **kwargs)

    monkeypatch.setattr(runner, "run_range", run_range)


def said(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "simlab"]


@pytest.fixture
def nothing_told(monkeypatch):
    """A process whose API has told of no compile yet."""
    monkeypatch.setattr(compiling, "_TOLD_IN_PROCESS", set())


def test_the_api_says_a_compile_once_a_run(caplog, compile_in_each_run, nothing_told):
    """Once a run; a later run of the same rules in the process that compiles (another
    kind of run: traced, a general path) says it compiles more of them, not "a first
    run" again."""
    caplog.set_level(logging.INFO, logger="simlab")
    simlab.simulate(DUEL, n=3000)
    assert said(caplog) == [compiling.compiling_message("shattered-spirits")]
    caplog.clear()
    simlab.simulate(DUEL, n=3000, precision=0.05)  # a run of several checkpoints
    again = compiling.compiling_message("shattered-spirits", again=True)
    assert said(caplog) == [again]
    assert "compiling more of the shattered-spirits kernels" in again
    assert "a first run" not in again


def test_a_comparison_says_a_compile_once(caplog, compile_in_each_run, nothing_told):
    caplog.set_level(logging.INFO, logger="simlab")
    simlab.compare(DUEL, changes={"Defender.hp": 30}, n=2000)
    assert said(caplog) == [compiling.compiling_message("shattered-spirits")]


def test_a_caller_with_its_own_progress_is_not_told(caplog, compile_in_each_run):
    caplog.set_level(logging.INFO, logger="simlab")
    simlab.simulate(DUEL, n=3000, progress=lambda done: None)
    assert said(caplog) == []


def test_a_run_that_compiles_nothing_says_nothing(caplog):
    caplog.set_level(logging.INFO, logger="simlab")
    simlab.simulate(DUEL, n=3000)  # the kernels are compiled or cached by now
    simlab.simulate(DUEL, n=3000)
    assert said(caplog) == []


def test_the_notice_is_silenced_as_any_logger_is(
    caplog, compile_in_each_run, monkeypatch, nothing_told
):
    monkeypatch.setattr(logging.getLogger(compiling.LOGGER), "level", logging.WARNING)
    simlab.simulate(DUEL, n=3000)
    assert said(caplog) == []


def test_a_command_is_told_of_each_rule_systems_first_compile_by_name() -> None:
    """The outer listener (a command's) hears the rule system each inner run names, once
    each: a report over two rule systems' scenarios says both compiles, not the first."""
    heard: list[str] = []
    with compiling.listening(heard.append):
        for rules in ("zones-3d6", "zones-3d6", "glitters-d20"):
            with compiling.listening(compiling.say_compiling, rules):
                compiling.compile_starting()
                compiling.compile_starting()
        compiling.compile_starting()  # outside any named run
    assert heard == ["zones-3d6", "glitters-d20", ""]
