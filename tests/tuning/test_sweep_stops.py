"""A sweep run to a precision says which point stopped where, in the terminal and on its
page, where its header gave only the range of stops."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import simlab
from simlab.report.tuning_terminal import print_sweep
from simlab.tuning.sweep import SweepPoint, SweepResult, Variation
from tests.support import printed_at


def _flat(text: str) -> str:
    """``text`` with its line breaks and runs of spaces made one space each."""
    return " ".join(text.split())


def test_each_points_stop_is_said_in_the_terminal_and_on_the_page(
    duel: Any, tmp_path: Path
) -> None:
    """Guard 0 and 3 stop apart; the header said ``2,000–8,000 encounters per point``
    and nothing told which needed more."""
    sw = simlab.sweep(duel, {"Defender.guard": [0, 3]}, n=128_000, precision=0.01, exact=False)
    table = sw.encounters_per_point()
    assert table.encounters.nunique() == 2 and table.precision_met.all()
    (few, guard_few), (more, guard_more) = sorted(
        zip(table.encounters, table["Defender.guard"], strict=True))  # fmt: skip
    said = (f"Stopped at {few:,} encounters: Defender.guard = {guard_few}; at {more:,}: "
            f"{guard_more}.")  # fmt: skip
    assert sw.stops_said() == said
    printed = printed_at(lambda: print_sweep(sw), 80)
    assert said in _flat(printed)
    assert max(map(len, printed.splitlines())) <= 80
    simlab.write_sweep(sw, tmp_path)
    assert said in _flat((tmp_path / "sweep.md").read_text())
    assert said in _flat((tmp_path / "sweep.html").read_text())


def _swept(stops: list[tuple[dict[str, Any], int | None, bool]], cap: int) -> SweepResult:
    """A sweep whose points stopped at the counts given, met or not (None: not run to a
    precision), without running one."""
    fields = list(stops[0][0])
    sweep = SweepResult("s", "r", 1, cap, [Variation(f, (), f) for f in fields])
    for point, count, met in stops:
        record = None if count is None else {"encounters": count, "met": met}
        result = SimpleNamespace(meta={} if record is None else {"precision": record})
        sweep.points.append(SweepPoint(point, None, result))  # type: ignore[arg-type]
    return sweep


def test_points_that_reached_the_cap_are_said_apart_from_those_met_there() -> None:
    """A grid of two fields: each point by its values in order, and the cap reached
    before the precision told from a precision met at the cap."""
    sweep = _swept([({"Orc.hp": 8, "Orc.guard": 0}, 2000, True),
                    ({"Orc.hp": 8, "Orc.guard": 1}, 8000, True),
                    ({"Orc.hp": 9, "Orc.guard": 0}, 8000, False),
                    ({"Orc.hp": 9, "Orc.guard": 1}, 2000, True)], cap=8000)  # fmt: skip
    assert sweep.stops_said() == (
        "Stopped at 2,000 encounters: Orc.hp · Orc.guard = 8 · 0, 9 · 1; at 8,000 (the "
        "cap): 8 · 1; at 8,000, the cap, before the precision was met: 9 · 0."
    )


def test_nothing_is_added_where_the_header_says_it_all() -> None:
    """Every point at one stop (the header's count is each point's), or no precision."""
    same = _swept([({"Orc.hp": 8}, 4000, True), ({"Orc.hp": 9}, 4000, True)], cap=8000)
    plain = _swept([({"Orc.hp": 8}, None, True), ({"Orc.hp": 9}, None, True)], cap=8000)
    assert same.stops_said() == "" and plain.stops_said() == ""
