"""One rule for a figure shown with its 95% interval, in every table and page.

(a) the interval shown is never narrower than the true one; (b) the figure has the
decimals of its interval, one more where rounding it would show the interval more than
half as wide again (a ``--precision`` run's to the precision reached); (c) where
``value ± half`` would reach past what the figure can be (below 0, above 1 for a rate), or
onto 0 or 1 where the interval does not, it is ``value [lo, hi]``, and a figure that is
not 0 never reads as 0.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

import simlab
from simlab.report import terminal
from simlab.report.terminal import NON_NEGATIVE, RATE_RANGE, estimate
from tests.support import printed_at

ROOT = Path(__file__).resolve().parents[2]
DUEL = ROOT / "scenarios/benchmarks/ss-duel.yaml"
PARTY = ROOT / "scenarios/opposed-tiers/party-fight.yaml"


def shown_interval(text: str, within: tuple[float, float]) -> tuple[float, float, float]:
    """The value and the interval a cell printed by :func:`estimate` stands for."""
    if " ± " in text:
        value, half = (float(x) for x in text.split(" ± "))
        return value, value - half, value + half
    if m := re.fullmatch(r"(\S+) \[(\S+), (\S+)\]", text):
        return float(m[1]), float(m[2]), float(m[3])
    if m := re.fullmatch(r"(\S+) \(([<>]) (\S+)\)", text):
        bound = float(m[3])
        return (float(m[1]), within[0], bound) if m[2] == "<" else (float(m[1]), bound, within[1])
    raise AssertionError(f"not a figure with its interval: {text!r}")


@pytest.mark.parametrize(
    ("value", "lo", "hi", "within", "before", "after"),
    [
        # the precision reached, not three decimals at most: ± 0.000958 read as ± 0.002
        (0.91667, 0.91571, 0.91763, RATE_RANGE, "0.917 ± 0.002", "0.9167 ± 0.0010"),
        (0.97183, 0.97125, 0.97241, RATE_RANGE, "0.972 ± 0.001", "0.9718 ± 0.0007"),
        # past 0 or 1, or onto 0 that the interval excludes: its bounds, rounded outwards
        (1 / 3, 0.0084, 0.9057, RATE_RANGE, "0.3 ± 0.7", "0.3 [0.008, 0.91]"),
        (8.0, -88.0, 104.0, NON_NEGATIVE, "8 ± 96", "8 [0, 104]"),
        (0.0031, 0.00098, 0.0068, RATE_RANGE, "0.003 ± 0.004", "0.003 [0.0009, 0.007]"),
        (0.9995, 0.998, 0.99995, RATE_RANGE, "1.000 ± 0.002", "0.9995 [0.998, 0.99995]"),
        # never 0.000 for a rate that happened
        (0.000097, 0.0000025, 0.000349, RATE_RANGE, "0.000 ± 0.001", "0.0001 [2e-06, 0.0004]"),
        (0.0000415, 0.0000083, 0.00013, RATE_RANGE, "0.000 ± 0.001", "4e-05 [8e-06, 0.00013]"),
        # below 0.0001 the figure, its half-width and its bounds as powers of ten alike
        (9e-05, 4.1e-05, 1.75e-4, RATE_RANGE, "9e-05 [0.00004, 0.00018]", "9e-05 [4e-05, 0.00018]"),
        (8e-05, 3.5e-05, 1.3e-04, RATE_RANGE, "0.00008 ± 0.00005", "8e-05 ± 5e-05"),
        (1.2e-04, 8e-05, 1.6e-04, RATE_RANGE, "0.00012 ± 0.00004", "0.00012 ± 4e-05"),
        (7.2e-06, 1e-06, 2e-05, RATE_RANGE, "7e-06 [1e-06, 0.00002]", "7e-06 [1e-06, 2e-05]"),
        # as it was
        (0.547, 0.538, 0.556, RATE_RANGE, "0.547 ± 0.009", "0.547 ± 0.009"),
        (3.4127, 3.397, 3.428, NON_NEGATIVE, "3.41 ± 0.02", "3.41 ± 0.02"),
        (1.0, 0.99982, 1.0, RATE_RANGE, "1 (> 0.999)", "1 (> 0.9998)"),
    ],
)
def test_the_rule_on_the_walk_s_figures(value: float, lo: float, hi: float,
                                        within: tuple[float, float], before: str,
                                        after: str) -> None:  # fmt: skip
    assert estimate(value, lo, hi, within) == after, before


def _random_intervals(seed: int) -> list[tuple[float, float, float, tuple[float, float]]]:
    """Rates and means of every size, with intervals as simlab's methods give them:
    Wilson's and Clopper–Pearson's within [0, 1], a t-interval that may reach below 0."""
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(3000):
        n = int(10 ** rng.uniform(0, 7))
        k = int(rng.binomial(n, 10 ** rng.uniform(-6, 0)))
        p = k / n
        half = 1.96 * math.sqrt(max(p * (1 - p), 1 / n) / n) * rng.uniform(0.5, 1.5)
        lo, hi = max(p - half * rng.uniform(0.2, 1), 0.0), min(p + half, 1.0)
        lo, hi = (0.0 if k == 0 else lo), (1.0 if k == n else hi)
        cases.append((p, min(lo, p), max(hi, p), RATE_RANGE))
        mean = 10 ** rng.uniform(-3, 2)
        spread = mean * 10 ** rng.uniform(-4, 1)
        cases.append((mean, mean - spread, mean + spread * rng.uniform(0.8, 1.2), NON_NEGATIVE))
    return cases


@pytest.mark.parametrize("seed", [1, 2])
def test_every_figure_shown_holds_its_interval_and_stays_within_its_values(seed: int) -> None:
    for value, lo, hi, within in _random_intervals(seed):
        text = estimate(value, lo, hi, within)
        shown, low, high = shown_interval(text, within)
        true_lo, true_hi = max(lo, within[0]), min(hi, within[1])
        assert low <= true_lo + 1e-12 and true_hi <= high + 1e-12, (value, lo, hi, text)  # (a)
        assert within[0] <= low and high <= within[1], (value, lo, hi, text)  # (c)
        for limit in within:  # (c): onto a limit only where the interval reaches it
            assert limit not in (low, high) or limit in (true_lo, true_hi), (value, lo, hi, text)
        assert (shown == 0) == (value == 0), (value, lo, hi, text)  # never 0.000
        if " ± " in text:  # (b)
            half = max(value - true_lo, true_hi - value)
            assert (high - low) / 2 <= 1.5 * half + 1e-12, (value, lo, hi, text)


def _cell(text: str, row_start: str, column: int) -> str:
    """The cell ``column`` (0: the first after the names) of the row of ``text`` that
    starts with ``row_start``, cells two or more spaces apart."""
    line = next(line for line in text.splitlines() if line.strip().startswith(row_start))
    return re.split(r"\s{2,}", line.strip()[len(row_start) :].strip())[column]


def test_a_precision_run_prints_its_figures_to_the_precision_reached() -> None:
    """``--precision 0.001 --precision-on hit_rate:strike`` stopped at ± 0.000958 and the
    table read ``0.917 ± 0.002`` beside it."""
    duel = simlab.load(DUEL)
    res = simlab.simulate(duel, n=1_000_000, precision=0.001, precision_on=["hit_rate:strike"])
    r = res.hit_rates().iloc[0]
    reached = max(r.hit_rate - r.hit_rate_ci95_lo, r.hit_rate_ci95_hi - r.hit_rate)
    assert reached <= 0.001
    text = printed_at(lambda: terminal.console.print(terminal.attacks_table(res)))
    found = re.search(r"0\.9\d* ± \S+", text)  # the hit rate, wherever the layout puts it
    assert found, text
    cell = found[0]
    value, half = cell.split(" ± ")
    assert len(value.partition(".")[2]) == 4 and float(half) <= 1.5 * reached, cell


@pytest.mark.slow  # a sweep page written with its pictures: about 13 s
def test_a_figure_reads_the_same_in_the_run_the_sweep_and_the_page(tmp_path: Path) -> None:
    """The party fight's rare crits: the sweep printed ``0.000 ± 0.001`` and its page
    ``0.0000 [0.0000, 0.0004]`` for a rate of 0.0001 whose interval excludes 0, a third
    form beside ``0.003 [0.001, 0.007]``. A sweep point is the run with the same
    ``--set`` bit for bit, so each of its figures must be printed as the run prints it,
    and the page must give the same decimals in its bracketed form."""
    fight = simlab.load(PARTY)
    sweep = simlab.sweep(fight, {"Warden.hp": [15]}, n=5000, exact=False)
    run = simlab.simulate(fight.with_({"Warden.hp": 15}), n=5000)
    simlab.write_sweep(sweep, tmp_path)
    page = (tmp_path / "sweep.md").read_text()
    from simlab.report.tuning_terminal import sweep_attack_tables

    tables = printed_at(lambda: [terminal.console.print(t) for t in sweep_attack_tables(sweep)])
    rates = run.hit_rates()
    rare = rates[(rates.crit_rate > 0) & (rates.crit_rate < 0.001)]
    assert len(rare), "no rare crit to show"
    for r in rates.itertuples():
        cell = terminal.interval_cell(r, "crit_rate")
        shown, low, _ = shown_interval(cell, RATE_RANGE)
        assert shown > 0 if r.crit_rate > 0 else shown == 0, cell
        assert low > 0 if r.crits > 0 else True, cell
        title = f"{r.attacker}: {r.attack} → {r.defender} (± 95% interval)"
        block = tables[tables.index(title) :]
        header = next(line for line in block.splitlines() if "hit rate" in line)
        if r.crits == 0 and not sweep.can_crit(r.attacker, r.attack, r.defender):
            assert "crit rate" not in header, (title, block[:400])  # it cannot crit
        else:  # one that can reads its 0 where no crit came up, as the run does
            assert _cell(block, "15", 1) == cell, (title, block[:400])
        row = f"| 15 | {r.attacker} | {r.attack} | {r.defender} | "
        cells = next(line for line in page.splitlines() if line.startswith(row)).split(" | ")
        assert cells[5] == terminal.interval_cell(r, "crit_rate", bracketed=True), cells


def test_tune_shows_a_median_with_its_interval_in_rounds() -> None:
    """``tune … --target median_time_to_down:Defender=5``: ``4 ± 1`` for the interval
    [4, 5] read as if 3 were plausible; a median reads as everywhere else."""
    from simlab.report.tuning_terminal import _figure_text

    assert _figure_text("median_time_to_down", 4.0, 4.0, 5.0, "simulated") == "4 [4, 5]"
    assert _figure_text("crit_rate", 0.003, 0.0009, 0.007, "simulated") == "0.003 [0.0009, 0.007]"


def test_compare_never_prints_a_rare_figure_of_a_or_b_as_0() -> None:
    """A and B are printed to the decimals of their difference's interval: a crit rate of
    0.0003 beside a difference known to ± 0.002 read ``0.000``."""
    from simlab.report.tuning_terminal import _number

    assert _number(0.0003, 3, "crit_rate") == "0.0003"
    assert _number(0.9996, 3, "hit_rate") == "0.9996"
    assert _number(0.0, 3, "crit_rate") == "0"  # never happened: 0, as a run shows it
    assert _number(12.5, 2, "mean_damage") == "12.50"


def test_every_probability_figure_is_shown_as_a_rate() -> None:
    """``down_by_round`` and ``damage_at_least`` are shares of encounters or attacks:
    ``tune`` printed a rate of 0.99667 as ``1.00 ± 0.02`` and one of 0 as ``0.0000
    [0.0000, 0.0003]``, the range of a mean."""
    from simlab.scenario.common import RATE_FIGURES
    from simlab.tuning.figures import RATES

    for figure in {*RATE_FIGURES, *RATES}:
        assert terminal.figure_range(figure) == RATE_RANGE, figure
    for figure in ("mean_damage", "median_time_to_down", "mean_time_to_down", "mean_rounds"):
        assert terminal.figure_range(figure) == NON_NEGATIVE, figure
    down = terminal.figure_range("down_by_round")
    assert estimate(0.99667, 0.98157, 0.99992, down) == "0.997 [0.98, 0.99992]"
    assert estimate(0.0, 0.0, 0.0003, terminal.figure_range("damage_at_least")) == "0 (< 0.0003)"


@pytest.mark.parametrize(
    ("value", "lo", "hi", "within", "terminal_text", "page"),
    [
        # the pages skipped the extra decimal of rule (b): 0.06 [0.05, 0.08]
        (0.0626, 0.0532, 0.0721, RATE_RANGE, "0.063 ± 0.010", "0.063 [0.053, 0.073]"),
        (1.706, 1.593, 1.819, NON_NEGATIVE, "1.71 ± 0.12", "1.71 [1.59, 1.82]"),
        (13.80, 13.683, 13.926, NON_NEGATIVE, "13.80 ± 0.13", "13.80 [13.68, 13.93]"),
        (0.0068, 0.0055, 0.0081, RATE_RANGE, "0.0068 ± 0.0013", "0.0068 [0.0055, 0.0081]"),
        # below 0.0001, powers of ten on both: the page wrote 9e-05 [0.00004, 0.00018]
        (8e-05, 3.5e-05, 1.3e-04, RATE_RANGE, "8e-05 ± 5e-05", "8e-05 [3e-05, 0.00013]"),
        (9e-05, 4.1e-05, 1.75e-04, RATE_RANGE, "9e-05 [4e-05, 0.00018]", "9e-05 [4e-05, 0.00018]"),
    ],
)
def test_a_page_shows_a_figure_to_the_terminal_s_decimals(value: float, lo: float, hi: float,
                                                          within: tuple[float, float],
                                                          terminal_text: str,
                                                          page: str) -> None:  # fmt: skip
    assert estimate(value, lo, hi, within) == terminal_text
    assert estimate(value, lo, hi, within, bracketed=True) == page


@pytest.mark.parametrize("seed", [3])
def test_the_page_and_the_terminal_give_every_figure_the_same_decimals(seed: int) -> None:
    for value, lo, hi, within in _random_intervals(seed):
        text = estimate(value, lo, hi, within)
        page = estimate(value, lo, hi, within, bracketed=True)
        if " ± " in text and value >= terminal.SMALL:  # below: its first digit on the page
            assert page.split(" [")[0] == text.split(" ± ")[0], (value, lo, hi, text, page)
        elif " [" in text:
            assert page == text, (value, lo, hi)
        # below 0.0001 a figure, its half-width and its bounds are powers of ten on both
        assert not re.search(r"\b0\.0000+[1-9]", text + page), (value, lo, hi, text, page)


def test_an_exact_answer_reads_the_same_everywhere() -> None:
    """``7.9529`` in the sweep's terminal table, ``7.953`` on its page, and ``4.213``
    beside ``4.7573`` in one column."""
    from simlab.report.tuning_terminal import _exact_cell

    assert terminal.exact_number(7.95291) == _exact_cell(7.95291) == "7.9529"
    assert terminal.exact_number(4.21300) == "4.2130"
    assert terminal.exact_number(0.00004, "crit_rate") == "0.00004"
    assert terminal.exact_number(0.99996, "hit_rate") == "0.99996"
    assert terminal.exact_number(float("nan")) == "—"


def test_the_contents_row_never_rounds_a_rate_to_100_or_0_percent() -> None:
    """``a: 100% · b: 0% · draw: 0%`` for a win rate of 0.99837 and 0.00163 draws."""
    from simlab.report import render

    assert render.percent is terminal.percent  # the contents row's percentages
    cases = {0.99837: "99.8%", 0.00163: "0.2%", 0.9999: "99.99%", 0.0001: "0.01%",
             1.0: "100%", 0.0: "0%", 0.62: "62%", 0.5: "50%"}  # fmt: skip
    for rate, text in cases.items():
        assert terminal.percent(rate) == text


def test_run_shows_event_rates_and_medians_by_the_rule() -> None:
    """Event rates read ``0.000`` and ``1.000`` with no interval beside rates that read
    ``0 (< 0.0002)``, and the median had its interval on the page only."""
    fight = simlab.load(PARTY)
    res = simlab.simulate(fight, n=2000)
    text = printed_at(lambda: terminal.print_result(res))
    assert max(len(line) for line in text.splitlines()) <= 80
    events = text[text.index("events (share of encounters)") :]
    row = next(line for line in events.splitlines() if line.startswith(" Raider 1 "))
    assert re.fullmatch(r" Raider 1\s+0\.99.*?\s{2,}0 \(< \S+\)\s+0 \(< \S+\)\s*", row), row
    assert not re.search(r"\b[01]\.0+\b(?! ±)", events.split("down rate:")[0]), events
    down = text[text.index("time-to-down (rounds)") :]
    assert _cell(down, "Raider 1", 2) == "3 [3, 3]", down
    assert terminal.median_note(res.combatants()) in " ".join(text.split()), "as its table"
    cells = terminal.event_rate_cells(res, bracketed=True)
    raider = [name for _, name in res.layout.combatants].index("Raider 1")
    assert cells[raider][1].startswith("0 [0, "), cells[raider]


def test_the_p_values_of_a_check_read_alike_in_their_column() -> None:
    """``run --check``'s p column wrote two significant digits without their trailing
    zeros: ``0.1`` under ``0.23``, and ``1``; each keeps them now (``0.10``, ``1.0``)."""
    import pandas as pd

    from simlab.exact.engine import BINOMIAL_P, CHECK_COLUMNS

    rows = [["hit_rate", "A", "jab", "B", 0.5, 0.5, 0.01, 0.1, p, kind]
            for p, kind in ((0.23, "normal"), (0.1, "normal"), (1.0, BINOMIAL_P))]  # fmt: skip
    check = pd.DataFrame(rows, columns=CHECK_COLUMNS)
    text = printed_at(lambda: terminal.console.print(terminal.check_table(check)))
    column = [line.split()[-1] for line in text.splitlines() if " jab " in line]
    assert column == ["0.23", "0.10", "1.0*"], text


def test_the_standard_errors_of_a_check_read_alike_in_their_column() -> None:
    """``run --check``'s std error column wrote two significant digits without their
    trailing zeros, ``0.0003`` above ``0.00072``: each keeps them now, as the p column
    does (``0.00030``); one of 10 or more is whole (``12``, not ``12.``), a certain
    figure's ``0``."""
    import pandas as pd

    from simlab.exact.engine import CHECK_COLUMNS

    rows = [["mean_damage", "A", "jab", "B", 10.0, 10.0, se, 0.1, 0.92, "normal"]
            for se in (0.0003, 0.00072, 0.0022, 0.1, 12.3, 2e-05, 0.0)]  # fmt: skip
    check = pd.DataFrame(rows, columns=CHECK_COLUMNS)
    text = printed_at(lambda: terminal.console.print(terminal.check_table(check)))
    column = [line.split()[-3] for line in text.splitlines() if " jab " in line]
    assert column == ["0.00030", "0.00072", "0.0022", "0.10", "12", "2.0e-05", "0"], text


@pytest.mark.parametrize(
    ("value", "lo", "hi", "within", "precision", "before", "after"),
    [
        # a mean damage held to 0.001 × 3.416 = 0.0034 ("precision met") read ± 0.004
        (3.416373, 3.41342, 3.419327, NON_NEGATIVE, 0.001, "3.416 ± 0.004", "3.4164 ± 0.0030"),
        (2.4991, 2.4751, 2.5231, NON_NEGATIVE, 0.01, "2.50 ± 0.03", "2.4991 ± 0.0240"),
        # a rate held to 0.003 read ± 0.004
        (0.8324, 0.8295, 0.8353, RATE_RANGE, 0.003, "0.832 ± 0.004", "0.8324 ± 0.0029"),
        # beyond its limit (a figure the rule does not hold): it reads beyond, as it was
        (9.4597, 9.4486, 9.4708, NON_NEGATIVE, 0.001, "9.460 ± 0.012", "9.460 ± 0.012"),
        # within it already: as it was
        (0.1412, 0.140235, 0.142165, RATE_RANGE, 0.001, "0.1412 ± 0.0010", "0.1412 ± 0.0010"),
    ],
)
def test_a_half_width_within_its_precision_reads_within_it(
    value: float, lo: float, hi: float, within: tuple[float, float], precision: float,
    before: str, after: str,
) -> None:  # fmt: skip
    """``run --precision 0.001`` said "precision met" over ``3.416 ± 0.004`` for a mean
    whose limit is 0.0034: the half-width, rounded up to the interval's decimals, read as
    the precision not met."""
    assert estimate(value, lo, hi, within) == before  # a run of a set size: as it was
    with terminal.held_to(precision):
        assert estimate(value, lo, hi, within) == after
        page = estimate(value, lo, hi, within, bracketed=True)
    _, low, high = shown_interval(page, within)
    limit = precision * max(value, 1.0) if within == NON_NEGATIVE else precision
    assert ((high - low) / 2 <= limit + 1e-12) == ((hi - lo) / 2 <= limit), page


@pytest.mark.parametrize("seed", [4])
def test_every_half_width_within_its_precision_reads_within_it_and_holds_its_interval(
    seed: int,
) -> None:
    rng = np.random.default_rng(seed)
    for value, lo, hi, within in _random_intervals(seed):
        true_lo, true_hi = max(lo, within[0]), min(hi, within[1])
        half = max(value - true_lo, true_hi - value)  # what a ± from the value must reach
        if not half > 0:
            continue
        scale = 1.0 if within == RATE_RANGE else max(abs(value), 1.0)
        precision = min(half * rng.uniform(0.95, 1.5) / scale, 1.0)
        limit = precision * scale
        with terminal.held_to(precision):
            text = estimate(value, lo, hi, within)
        _, low, high = shown_interval(text, within)
        assert low <= true_lo + 1e-12 and true_hi <= high + 1e-12, (value, lo, hi, text)  # (a)
        if " ± " in text and half <= limit * (1 - 1e-4):  # not a hair within: 3 more at most
            assert float(text.split(" ± ")[1]) <= limit, (value, lo, hi, precision, text)
        if " ± " in text and (true_hi - true_lo) / 2 > limit:  # beyond, as the rule measures
            assert float(text.split(" ± ")[1]) > limit, (value, lo, hi, precision, text)
