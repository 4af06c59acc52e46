"""Open the HTML report in headless Chromium and check that every image loaded.

Chromium is Debian's ``chromium`` package (``.ci/run`` installs it). In CI (``CI`` set)
the test fails when it is missing; elsewhere it is skipped. A copy of the report gets a
small script that, once the page has loaded, writes each image's state into the DOM;
``--dump-dom`` prints that DOM. The report itself has no script at all.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from simlab import api
from simlab.report.render import render_report

ROOT = Path(__file__).resolve().parents[2]
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         "--virtual-time-budget=10000"]  # fmt: skip
PROBE = """<script>
window.addEventListener("load", () => {
  const seen = [...document.images].map(i => ({alt: i.alt, complete: i.complete,
                                               width: i.naturalWidth, height: i.naturalHeight}));
  const out = document.createElement("pre");
  out.id = "simlab-image-probe";
  out.textContent = JSON.stringify(seen);
  document.body.appendChild(out);
});
</script>"""


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed (CI must have it: see .ci/run)")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return found


def test_every_image_of_the_report_loads_in_chromium(tmp_path: Path) -> None:
    browser = chromium()
    runs = [
        api.run_scenario(ROOT / "scenarios/shattered-spirits/quickstart.yaml", n=2000),
        api.run_scenario(ROOT / "scenarios/zones-3d6/longsword-vs-plate.yaml", n=2000),
    ]
    render_report(runs, tmp_path / "report")
    html = (tmp_path / "report/report.html").read_text(encoding="utf-8")
    expected = len(re.findall(r"<img\b", html))
    assert expected >= 8
    probe = tmp_path / "probe.html"
    # A broken image as a control: the probe must report it, and only it.
    control = '<img alt="control" src="data:image/png;base64,AAAA">'
    probe.write_text(html.replace("</body>", control + PROBE + "</body>"), encoding="utf-8")
    done = subprocess.run(
        [browser, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom",
         probe.as_uri()],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    match = re.search(r'<pre id="simlab-image-probe">(.*?)</pre>', done.stdout, re.S)
    assert match, f"chromium did not render the page: {done.stderr[-2000:]}"
    images = json.loads(match.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    assert len(images) == expected + 1
    broken = [i["alt"] for i in images if not (i["complete"] and i["width"] > 0
                                               and i["height"] > 0)]  # fmt: skip
    assert broken == ["control"], f"images that did not load: {broken}"


WIDTH_PROBE = """<script>
window.addEventListener("load", () => {
  const out = document.createElement("pre");
  out.id = "simlab-width-probe";
  out.textContent = JSON.stringify({page: document.documentElement.scrollWidth,
                                    window: document.documentElement.clientWidth});
  document.body.appendChild(out);
});
</script>"""


def test_a_wide_table_scrolls_in_its_box_not_the_page(tmp_path: Path) -> None:
    """spirits-2v3's time-to-down table (13 columns) made the page 1342 px wide in a
    1280 px window, its last column cut off: it scrolls inside a box of its own."""
    browser = chromium()
    run = api.run_scenario(ROOT / "scenarios/shattered-spirits/spirits-2v3.yaml", n=1000)
    render_report([run], tmp_path / "report")
    html = (tmp_path / "report/report.html").read_text(encoding="utf-8")
    probe = tmp_path / "probe.html"
    probe.write_text(html.replace("</body>", WIDTH_PROBE + "</body>"), encoding="utf-8")
    done = subprocess.run(
        [browser, *FLAGS, "--window-size=1280,1600", f"--user-data-dir={tmp_path / 'profile'}",
         "--dump-dom", probe.as_uri()],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    match = re.search(r'<pre id="simlab-width-probe">(.*?)</pre>', done.stdout, re.S)
    assert match, f"chromium did not render the page: {done.stderr[-2000:]}"
    width = json.loads(match.group(1).replace("&quot;", '"'))
    assert width["page"] <= width["window"], width


TOC_PROBE = """<script>
window.addEventListener("load", () => {
  const out = document.createElement("pre");
  out.id = "simlab-toc-probe";
  const cells = [...document.querySelectorAll("table.toc td:nth-child(n+4)")];
  out.textContent = JSON.stringify(cells.map(c => c.getBoundingClientRect().width));
  document.body.appendChild(out);
});
</script>"""


def test_the_contents_columns_keep_a_readable_width_on_a_phone(tmp_path: Path) -> None:
    """At 400 px the contents table's win rates, hit rates and medians were squeezed to
    their longest word, a column of 40 px whose rows ran a screen tall (``Kait`` /
    ``quic`` / ``jab:``): they keep a width to read, and the table scrolls in its box."""
    browser = chromium()
    run = api.run_scenario(ROOT / "scenarios/shattered-spirits/spirits-2v3.yaml", n=300)
    render_report([run], tmp_path / "report", write_results=False)
    html = (tmp_path / "report/report.html").read_text(encoding="utf-8")
    probe = tmp_path / "probe.html"
    probe.write_text(html.replace("</body>", TOC_PROBE + WIDTH_PROBE + "</body>"), "utf-8")
    done = subprocess.run(
        [browser, *FLAGS, "--window-size=400,1600", f"--user-data-dir={tmp_path / 'profile'}",
         "--dump-dom", probe.as_uri()],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    match = re.search(r'<pre id="simlab-toc-probe">(.*?)</pre>', done.stdout, re.S)
    assert match, f"chromium did not render the page: {done.stderr[-2000:]}"
    widths = json.loads(match.group(1))
    assert len(widths) == 3 and min(widths) >= 150, widths
    page = re.search(r'<pre id="simlab-width-probe">(.*?)</pre>', done.stdout, re.S)
    assert page, done.stdout[-500:]
    width = json.loads(page.group(1).replace("&quot;", '"'))
    assert width["page"] <= width["window"], width  # the table scrolls, not the page


PLOT_PROBE = """<script>
window.addEventListener("load", () => {
  const out = document.createElement("pre");
  out.id = "simlab-plot-probe";
  out.textContent = JSON.stringify({
    page: document.documentElement.scrollWidth, window: document.documentElement.clientWidth,
    plots: [...document.querySelectorAll("figure img")].map(
      i => ({alt: i.alt, shown: i.getBoundingClientRect().width, natural: i.naturalWidth}))});
  document.body.appendChild(out);
});
</script>"""


def _plots_at(browser: str, page: Path, width: int, profile: Path) -> dict[str, Any]:
    """The page's width and each plot's shown and natural widths in a window ``width``
    px wide."""
    probe = page.with_name("plot-probe.html")
    html = page.read_text(encoding="utf-8")
    probe.write_text(html.replace("</body>", PLOT_PROBE + "</body>"), encoding="utf-8")
    done = subprocess.run(
        [browser, *FLAGS, f"--window-size={width},1600", f"--user-data-dir={profile}",
         "--dump-dom", probe.as_uri()],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    match = re.search(r'<pre id="simlab-plot-probe">(.*?)</pre>', done.stdout, re.S)
    assert match, f"chromium did not render the page: {done.stderr[-2000:]}"
    found: dict[str, Any] = json.loads(match.group(1).replace("&quot;", '"'))
    return found


def test_the_plots_keep_a_readable_size_on_a_phone(tmp_path: Path) -> None:
    """At 400 px every plot was shrunk to the screen: a report's damage plots (1,100 px
    drawn) to a third, their 9 pt ticks and legends some 4 px tall, a 700 px one to
    half. A plot keeps at least 720 px (its own width where narrower) and scrolls in its
    box, not the page; at 1280 px they are shown whole, as before."""
    browser = chromium()
    sweep = api.sweep(ROOT / "scenarios/benchmarks/ss-duel.yaml", {"Defender.guard": [0, 2]},
                      n=300, seed=1)  # fmt: skip
    api.write_sweep(sweep, tmp_path / "sweep")
    run = api.run_scenario(ROOT / "scenarios/shattered-spirits/quickstart.yaml", n=300)
    render_report([run], tmp_path / "report", write_results=False)
    for page in (tmp_path / "sweep/sweep.html", tmp_path / "report/report.html"):
        phone = _plots_at(browser, page, 400, tmp_path / "profile")
        assert len(phone["plots"]) >= 3 and phone["page"] <= phone["window"], phone
        for plot in phone["plots"]:
            least = min(plot["natural"], 720)
            assert plot["shown"] >= least - 1, (page.name, plot)
        desk = _plots_at(browser, page, 1280, tmp_path / "profile")
        assert desk["page"] <= desk["window"], desk
        for plot in desk["plots"]:  # as wide as the page holds, never wider
            assert plot["shown"] == pytest.approx(min(plot["natural"], 1100), abs=1), plot


BROKEN_WORDS_PROBE = """<script>
window.addEventListener("load", () => {
  const broken = [], seen = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walk.nextNode(); node; node = walk.nextNode()) {
    for (const m of node.textContent.matchAll(/[^\\s\\u00a0]*\\w-\\w[^\\s\\u00a0]*/g)) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const tops = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
      seen.push(m[0]);
      if (tops.size > 1) broken.push(m[0]);
    }
  }
  const out = document.createElement("pre");
  out.id = "simlab-words-probe";
  out.textContent = JSON.stringify({seen, broken});
  document.body.appendChild(out);
});
</script>"""


def test_hyphenated_names_stay_whole_on_a_phone(tmp_path: Path) -> None:
    """At 400 px the comparison page broke names at their hyphens, ``stone-`` over
    ``strike`` in its table and ``rules shattered-`` over ``spirits`` in its identity
    line: a word with a hyphen inside it stays on one line (its hyphens still ``-``, so
    that a search of the page finds the name)."""
    browser = chromium()
    quickstart = ROOT / "scenarios/shattered-spirits/quickstart.yaml"
    comparison = api.compare(quickstart, changes={"stone-strike.profile[5]": 6}, n=2000)
    api.write_compare(comparison, tmp_path / "compare")
    html = (tmp_path / "compare/compare.html").read_text(encoding="utf-8")
    assert "stone-strike" in html and "stone\u2011strike" not in html
    probe = tmp_path / "probe.html"
    probe.write_text(html.replace("</body>", BROKEN_WORDS_PROBE + "</body>"), "utf-8")
    done = subprocess.run(
        [browser, *FLAGS, "--window-size=400,1600", f"--user-data-dir={tmp_path / 'profile'}",
         "--dump-dom", probe.as_uri()],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    match = re.search(r'<pre id="simlab-words-probe">(.*?)</pre>', done.stdout, re.S)
    assert match, f"chromium did not render the page: {done.stderr[-2000:]}"
    words = json.loads(match.group(1).replace("&quot;", '"'))
    assert "shattered-spirits" in words["seen"] and any(
        "stone-strike" in w for w in words["seen"]), words["seen"]  # fmt: skip
    assert words["broken"] == [], words["broken"]
