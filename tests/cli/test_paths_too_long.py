"""A path no system can hold, given to any command or API function: asking the system
of it raised ``OSError: File name too long`` where it was first looked at, an internal
error (exit 3) in ``validate``, ``check``, ``report``, ``report --from``, ``--out`` and
``--baseline``; now refused at once, naming the argument (exit 2)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import simlab
from simlab.arguments import path_too_long
from simlab.cli import main
from simlab.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = str(ROOT / "scenarios/shattered-spirits/quickstart.yaml")
LONG_NAME = "x" * 300 + ".yaml"
TOO_LONG = "a name of 305 bytes ('xxxxxxxxxxxxxxxxxxxx'…), longer than the 255"


@pytest.mark.parametrize(
    ("args", "argument"),
    [
        (["validate", LONG_NAME], "SCENARIOS..."),
        (["run", LONG_NAME], "SCENARIO"),
        (["check", LONG_NAME], "[SCENARIOS]..."),
        (["report", LONG_NAME], "[SCENARIOS]..."),
        (["report", "--from", LONG_NAME], "--from"),
        (["compare", QUICKSTART, LONG_NAME], "[B]"),
        (["run", QUICKSTART, "-n", "100", "--out", LONG_NAME], "--out"),
        (["report", QUICKSTART, "-n", "100", "--baseline", LONG_NAME], "--baseline"),
        (["baseline", "update", LONG_NAME], "[SCENARIOS]..."),
    ],
)  # fmt: skip
def test_a_path_too_long_for_the_system_exits_2_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], argument: str
) -> None:
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(main, args)
    said = " ".join(done.output.split())
    assert done.exit_code == 2, done.output
    assert f"Invalid value for '{argument}': expected a path the system can hold; got " in said
    assert TOO_LONG in said and "internal error" not in said
    assert list(tmp_path.iterdir()) == []


def test_a_whole_path_too_long_is_said_as_such() -> None:
    deep = "d/" * 2100 + "s.yaml"
    assert path_too_long(deep) == (
        "a path of 4,206 bytes, longer than the 4,095 a path may have"
    )  # fmt: skip
    assert path_too_long("d/" * 100 + "s.yaml") is None
    assert path_too_long("x" * 255) is None


@pytest.mark.parametrize(
    "call",
    [
        lambda path: simlab.check(path),
        lambda path: simlab.simulate(path, n=10),
        lambda path: simlab.run_scenarios([path]),
        lambda path: simlab.load_results(path),
    ],
)
def test_the_api_refuses_such_a_path_as_bad_input(call: Callable[[str], Any]) -> None:
    with pytest.raises(InputError, match=r"(?i)file name too long|longer than the 255"):
        call(LONG_NAME)
