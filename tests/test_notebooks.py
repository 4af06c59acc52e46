"""Every notebook in notebooks/ runs top to bottom without error (committed without outputs)."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code")
    resources = {"metadata": {"path": str(path.parent)}}
    NotebookClient(notebook, timeout=600, resources=resources).execute()
    last = notebook.cells[-1]
    assert any("encounter" in str(out) for out in last.outputs)
