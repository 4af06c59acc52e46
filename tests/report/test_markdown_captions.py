"""``report.md`` and ``sweep.md`` give each picture's caption beside its link, as the
HTML pages give it under the picture: the Markdown listed the titles alone, so that what
a plot's marks mean (the sweep's row of medians not reached, the report's bars and
whiskers, the defenders a damage plot leaves out) was said on the page only."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from simlab import api
from tests.report.report_html import words_unwrapped

ROOT = Path(__file__).resolve().parents[2]


def _captions(page: Path) -> list[str]:
    """The captions under the pictures of an HTML page, as text."""
    text = words_unwrapped(page.read_text(encoding="utf-8"))
    return [html.unescape(c) for c in re.findall(r"<figcaption>(.*?)</figcaption>", text, re.S)]


def _links(page: Path) -> list[str]:
    """The list items of a Markdown page that link a picture in ``png/``."""
    return re.findall(r"^- \[.*\]\(png/[^)]+\).*$", page.read_text(encoding="utf-8"), re.M)


def _unescaped(markdown: str) -> str:
    """Markdown text without its backslash escapes."""
    return re.sub(r"\\(.)", r"\1", markdown)


def test_the_sweep_markdown_explains_its_median_plot(tmp_path: Path) -> None:
    """The guard 4 duel at 20 rounds: the Defender's median is not reached, which the
    page's caption explains and ``sweep.md`` did not."""
    capped = api.sweep(ROOT / "scenarios/benchmarks/ss-duel.yaml",
                       {"Defender.guard": [0, 4], "max_rounds": [20]}, n=500, seed=3)  # fmt: skip
    api.write_sweep(capped, tmp_path)
    (median,) = [c for c in _captions(tmp_path / "sweep.html") if "grey row" in c]
    links = [_unescaped(link) for link in _links(tmp_path / "sweep.md")]
    title, _, words = median.partition(": ")
    assert f"- [{title}](png/median-time-to-down.png): {words}" in links, links


def test_the_report_markdown_gives_every_caption(skirmish_report: Any) -> None:
    """Each picture of the skirmish's report is linked with its caption."""
    _, out = skirmish_report
    captions = _captions(out / "report.html")
    links = " ".join(_unescaped(link) for link in _links(out / "report.md"))
    assert captions and len(_links(out / "report.md")) == len(captions)
    for caption in captions:
        assert caption in links, caption
