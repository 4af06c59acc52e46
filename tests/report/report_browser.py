"""Headless Chromium for the page tests: where it is, its flags, and what a script finds
in a page shown at a given width, a phone's too.

Chromium is Debian's ``chromium`` package (``.ci/run`` installs it). In CI (``CI`` set)
a test that needs it fails when it is missing; elsewhere it is skipped. Headless
Chromium's window is at least 500 px wide, which it lays a page out at whatever width is
asked for, so a page is measured in a frame of the width asked for (:func:`measured`):
its own document is then exactly that wide, as on a 390 px phone.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         "--virtual-time-budget=10000"]  # fmt: skip
#: The phone's width (an iPhone's), narrower than headless Chromium's narrowest window.
PHONE = 390
#: Headless Chromium's narrowest window: a narrower one is laid out this wide.
NARROWEST_WINDOW = 500


def chromium() -> str:
    """The path of Chromium; a failure in CI where it is missing, else a skip."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed (CI must have it: see .ci/run)")
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return found


def measured(page: Path, script: str, width: int, profile: Path) -> Any:
    """What ``script`` finds in ``page`` shown ``width`` px wide.

    Parameters
    ----------
    page : Path
        The HTML page; a frame page is written beside it.
    script : str
        A JavaScript expression of ``d``, the page's document once it has loaded (its
        images too), whose value is turned into JSON.
    width : int
        The width of the frame the page is shown in (its scrollbars hidden, as a
        phone draws them over the page).
    profile : Path
        Chromium's profile folder.

    Returns
    -------
    Any
        The script's value, read back from JSON.
    """
    (found,) = measured_all([(page, width, script)], profile)
    return found


def measured_all(shown: Sequence[tuple[Path, int, str]], profile: Path) -> list[Any]:
    """What each script finds in its page at its width, all in one launch of Chromium.

    Each page is shown in a frame of its own width, the frames one over another at the
    window's top left (so that each is in view), and each script reads its frame's
    document once every frame has loaded.

    Parameters
    ----------
    shown : sequence of (Path, int, str)
        Each page, the width of its frame and the script to run on it (as for
        :func:`measured`); a page may be shown at several widths.
    profile : Path
        Chromium's profile folder; the frame page is written beside the first page.

    Returns
    -------
    list
        Each script's value, read back from JSON, in the order of ``shown``.
    """
    frames = "".join(
        f'<iframe src="{page.resolve().as_uri()}" style="position:absolute;top:0;left:0;'
        f'border:0;width:{width}px;height:1600px"></iframe>'
        for page, width, _ in shown
    )
    scripts = ",".join(f"((d) => ({script}))(frames[{i}].contentDocument)"
                       for i, (_, _, script) in enumerate(shown))  # fmt: skip
    frame = shown[0][0].with_name("frame.html")
    frame.write_text(
        f'<!DOCTYPE html><html><body style="margin:0">{frames}<script>'
        'const frames = [...document.querySelectorAll("iframe")]; let waiting = frames.length;'
        "const probe = () => {"
        'const out = document.createElement("pre"); out.id = "probe";'
        f"out.textContent = JSON.stringify([{scripts}]); document.body.appendChild(out);}};"
        'frames.forEach(f => f.addEventListener("load", () => { if (--waiting === 0) probe(); }));'
        "</script></body></html>",
        encoding="utf-8",
    )
    widest = max(width for _, width, _ in shown)
    done = subprocess.run(
        [chromium(), *FLAGS, "--allow-file-access-from-files", "--hide-scrollbars",
         f"--user-data-dir={profile}",
         f"--window-size={max(widest, NARROWEST_WINDOW)},1600", "--dump-dom", frame.as_uri()],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    found = re.search(r'<pre id="probe">(.*?)</pre>', done.stdout, re.S)
    assert found, f"chromium did not render the page: {done.stderr[-2000:]}"
    values = json.loads(html.unescape(found.group(1)))
    assert len(values) == len(shown), values
    return list(values)
