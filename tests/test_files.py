"""Output files are written atomically and readable like any other file."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from simlab.report.files import write_json


def test_written_files_get_the_usual_mode(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        path = write_json(tmp_path / "summary.json", {"a": 1})
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["summary.json"]  # no temporary left
