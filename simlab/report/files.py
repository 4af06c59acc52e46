"""Writing results to disk: atomically, so a crash never leaves a half-written file.

Every file is written to a temporary name in the target folder and renamed over the
final name once complete (``os.replace`` is atomic on one filesystem).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd


def atomic_write(path: Path, write: Callable[[Path], None]) -> Path:
    """Call ``write(tmp)`` on a temporary file beside ``path``, then rename it to ``path``.

    Parameters
    ----------
    path : Path
        Final file name.
    write : callable
        Writes the complete content to the path it is given.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(Path(tmp))
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes it private; give it a file's usual mode
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _umask() -> int:
    """The process's file-creation mask (reading it means setting it, so set it back)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_json(path: Path, document: dict[str, Any]) -> Path:
    """Write ``document`` as indented JSON, atomically."""
    text = json.dumps(document, indent=2, allow_nan=False) + "\n"

    def write(tmp: Path) -> None:
        tmp.write_text(text, encoding="utf-8")

    return atomic_write(path, write)


def write_parquet(path: Path, frame: pd.DataFrame) -> Path:
    """Write ``frame`` as Parquet (zstd), atomically."""
    return atomic_write(path, lambda tmp: frame.to_parquet(tmp, compression="zstd", index=False))
