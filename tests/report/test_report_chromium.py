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
